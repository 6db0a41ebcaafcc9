/**
 * Voice-to-voice latency of a live Agent conversation over loopback WebRTC, part of
 * `npm run bench` (alone: `node --import tsx bench/voice.ts [--quick] [--turns N]
 * [--worker-env NAME=VALUE]...`).
 *
 * A client on @livekit/rtc-node (test/helpers/room-client.ts) speaks recorded questions
 * (espeak-ng, 48 kHz) into a real livekit-server; the real worker hears them (Silero VAD,
 * embedded Whisper), asks the OpenAI chat fake (a fixed first-token delay), and speaks
 * through the api's `/v1/tts/stream` (native voice). Measured at the client: from the end
 * of the user's words (when the last loud 10 ms of the recording played out of the
 * microphone; the recording's trailing silence is not speech) to the first loud agent frame
 * the client received. Beside it, the same turn's times from the worker's log lines: its
 * own end of speech (VAD) to its first audio frame, and LiveKit's stage metrics (end of
 * utterance, transcription, LLM first token, TTS first audio); "transport" is the client's
 * time less the worker's (the audio's way to the worker and back, jitter buffers).
 * Barge-in: the user speaks over a long answer; measured at the client from the start of
 * the user's words to the agent's last loud frame, beside the worker's
 * `detected_to_cleared_ms`. Writes bench/results/voice[-quick].json and, for a full
 * run, the section between `<!-- voice:start -->` and `<!-- voice:end -->` of
 * bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { dispose } from '@livekit/rtc-node';
import {
  firstWordStartMs,
  lastWordEndMs,
  RoomClient,
  SPEECH_RMS,
  speech,
  withPause,
} from '../test/helpers/room-client.ts';
import '../test/helpers/rtc-log.ts';
import { PAUSED_QUESTIONS, STT_SENTENCES } from '../test/helpers/stt-sentences.ts';
import { replaceReadmeSection } from './lib/readme-section.ts';
import { quantile, round } from './lib/stats.ts';
import { VoiceRig } from './lib/voice-rig.ts';
import { agentQuiet, metric } from './lib/voice-turn.ts';

const quick = process.argv.includes('--quick');
const turnsFlag = process.argv.indexOf('--turns');
const TURNS = turnsFlag >= 0 ? Number(process.argv[turnsFlag + 1]) : quick ? 3 : 12;
const BARGE_INS = quick ? 2 : 5;
/** Questions with a pause of {@link PAUSE_MS} after their first part (false turn ends). */
const PAUSED_TURNS = quick ? 2 : PAUSED_QUESTIONS.length;
const PAUSE_MS = 400;
/** `--worker-env NAME=VALUE` (repeatable): a worker setting to measure. */
const WORKER_ENV: Record<string, string> = Object.fromEntries(
  process.argv.flatMap((arg, i) => {
    if (process.argv[i - 1] !== '--worker-env') return [];
    const at = arg.indexOf('=');
    return at > 0 ? [[arg.slice(0, at), arg.slice(at + 1)]] : [];
  }),
);
const LLM_FIRST_TOKEN_DELAY_MS = 200;
const WHISPER_MODEL = process.env.WHISPER_MODEL ?? 'base';
/** The recognizer's shortest encoder window in seconds (30: Whisper's full window). */
const WHISPER_MIN_WINDOW_S = Number(process.env.WHISPER_MIN_WINDOW_S ?? 10);
const ANSWER = ['Sure,', ' here is', ' a short answer.'];

interface Turn {
  question: string;
  /** User turns the agent committed while the question was asked (1: no false turn end). */
  userTurns: number;
  totalMs: number;
  eouDelayMs: number;
  transcriptionDelayMs: number;
  llmTtftMs: number;
  ttsTtfbMs: number;
  /** The worker's end of speech (VAD) to its first audio frame. */
  workerMs: number;
}

interface BargeIn {
  clientMs: number;
  workerDetectedToClearedMs: number | null;
}

async function spokenTurn(
  rig: VoiceRig,
  client: RoomClient,
  sessionId: string,
  question: string,
  samples: Int16Array,
): Promise<Turn> {
  const logsFrom = rig.worker.logs().length;
  const userTurnsBefore = userTurns(client);
  const spoken = await client.say(samples, 1200);
  const wordsEndedAt = spoken.startMs + lastWordEndMs(samples);
  const firstAudio = await client.waitUntil(
    () => client.agentAudio.find((f) => f.atMs > wordsEndedAt && f.rms > SPEECH_RMS),
    180_000,
    `the answer to "${question}"`,
  );
  await agentQuiet(client, 'after the answer');
  const lines = rig.worker
    .logs()
    .slice(logsFrom)
    .filter((l) => l.session_id === sessionId);
  return {
    question,
    userTurns: userTurns(client) - userTurnsBefore,
    totalMs: firstAudio.atMs - wordsEndedAt,
    eouDelayMs: metric(lines, 'turn metrics: end of utterance', 'end_of_utterance_delay_ms'),
    transcriptionDelayMs: metric(lines, 'turn metrics: end of utterance', 'transcription_delay_ms'),
    llmTtftMs: metric(lines, 'turn metrics: llm', 'ttft_ms'),
    ttsTtfbMs: metric(lines, 'turn metrics: tts', 'ttfb_ms'),
    workerMs: metric(lines, 'turn metrics: first audio', 'end_of_speech_to_first_audio_ms'),
  };
}

async function bargeIn(rig: VoiceRig, client: RoomClient): Promise<BargeIn> {
  const story = Array.from({ length: 12 }, (_, i) => ` Sentence number ${i + 1} of a long story.`);
  rig.llm.script({ text: story, deltaDelayMs: 20 });
  const logsFrom = rig.worker.logs().length;
  const storyFrom = performance.now();
  await client.sendText('Tell me a long story.');
  await client.waitUntil(() => client.loudFramesSince(storyFrom) > 50, 60_000, 'story audio');
  const question = await speech('Stop please, I have a question.');
  const spoken = await client.say(question, 1200);
  const wordsStartedAt = spoken.startMs + firstWordStartMs(question);
  const stoppedAt = await client.waitUntil(
    () => {
      const last =
        client.agentAudio.filter((f) => f.atMs >= wordsStartedAt && f.rms > SPEECH_RMS).at(-1)
          ?.atMs ?? wordsStartedAt;
      return performance.now() - last > 600 ? last : undefined;
    },
    30_000,
    'the story to stop',
  );
  // The question is transcribed and answered before the next round (a loaded machine
  // can take many seconds to transcribe it).
  await client.waitUntil(
    () => client.agentAudio.find((f) => f.atMs > spoken.endMs && f.rms > SPEECH_RMS),
    180_000,
    'the answer to the barge-in question',
  );
  await agentQuiet(client, 'after the barge-in answer');
  const line = rig.worker
    .logs()
    .slice(logsFrom)
    .find((l) => l.msg === 'barge-in');
  const detected = line?.detected_to_cleared_ms;
  return {
    clientMs: stoppedAt - wordsStartedAt,
    workerDetectedToClearedMs: typeof detected === 'number' ? detected : null,
  };
}

function userTurns(client: RoomClient): number {
  return client.transcripts().filter((t) => t.role === 'user' && t.final).length;
}

function stat(values: number[]) {
  return { p50: Math.round(quantile(values, 0.5)), p95: Math.round(quantile(values, 0.95)) };
}

async function main(): Promise<void> {
  process.stderr.write(
    `bench voice: ${TURNS} turns, ${PAUSED_TURNS} paused, ${BARGE_INS} barge-ins, worker env ${JSON.stringify(WORKER_ENV)}\n`,
  );
  const rig = await VoiceRig.start({
    llmFirstTokenDelayMs: LLM_FIRST_TOKEN_DELAY_MS,
    llmAnswer: ANSWER,
    whisperModel: WHISPER_MODEL,
    whisperMinWindowS: WHISPER_MIN_WINDOW_S,
    workerEnv: WORKER_ENV,
  });
  const turns: Turn[] = [];
  const paused: Turn[] = [];
  const bargeIns: BargeIn[] = [];
  try {
    const session = await rig.startSession();
    const client = await RoomClient.join(session.url, session.token);
    try {
      await client.waitUntil(() => client.loudFramesSince(0) > 10, 60_000, 'the greeting');
      await agentQuiet(client, 'after the greeting');
      // One turn to warm the recognizer and the speech path, not counted.
      const warmUp = STT_SENTENCES[4] as string;
      await spokenTurn(rig, client, session.sessionId, warmUp, await speech(warmUp));
      for (let i = 0; i < TURNS; i++) {
        const question = STT_SENTENCES[i % STT_SENTENCES.length] as string;
        const turn = await spokenTurn(
          rig,
          client,
          session.sessionId,
          question,
          await speech(question),
        );
        process.stderr.write(`  turn ${i + 1}: ${Math.round(turn.totalMs)} ms\n`);
        turns.push(turn);
      }
      for (let i = 0; i < PAUSED_TURNS; i++) {
        const [first, second] = PAUSED_QUESTIONS[i % PAUSED_QUESTIONS.length] as readonly [
          string,
          string,
        ];
        const samples = withPause(await speech(first), await speech(second), PAUSE_MS);
        const question = `${first} (${PAUSE_MS} ms) ${second}`;
        const turn = await spokenTurn(rig, client, session.sessionId, question, samples);
        process.stderr.write(
          `  paused ${i + 1}: ${Math.round(turn.totalMs)} ms, ${turn.userTurns} user turn(s)\n`,
        );
        paused.push(turn);
      }
      for (let i = 0; i < BARGE_INS; i++) {
        const result = await bargeIn(rig, client);
        process.stderr.write(`  barge-in ${i + 1}: ${Math.round(result.clientMs)} ms\n`);
        bargeIns.push(result);
      }
    } finally {
      await client.leave();
    }
  } finally {
    // As the worker tests do: WORKER_LOG=FILE keeps the worker's output.
    if (process.env.WORKER_LOG) writeFileSync(process.env.WORKER_LOG, rig.worker.output());
    await rig.close();
    // rtc-node's native side keeps the process alive until it is released.
    await dispose();
  }

  const results = buildResults(turns, paused, bargeIns);
  const dir = path.join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, quick ? 'voice-quick.json' : 'voice.json'),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  const section = summary(results);
  process.stdout.write(`\n${section}\n`);
  if (!quick) replaceReadmeSection('voice', section);
}

function buildResults(turns: Turn[], paused: Turn[], bargeIns: BargeIn[]) {
  const date = new Date().toISOString();
  const env = Object.entries(WORKER_ENV).map(([name, value]) => ` --worker-env ${name}=${value}`);
  const command = `node --import tsx bench/voice.ts${quick ? ' --quick' : ''}${turnsFlag >= 0 ? ` --turns ${TURNS}` : ''}${env.join('')}`;
  const workerBargeIns = bargeIns.flatMap((b) =>
    b.workerDetectedToClearedMs === null ? [] : [b.workerDetectedToClearedMs],
  );
  return {
    date,
    command,
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      load_average_1m: round(loadavg()[0] ?? 0, 2),
    },
    settings: {
      turns: TURNS,
      barge_ins: BARGE_INS,
      llm: `OpenAI chat fake, first token after ${LLM_FIRST_TOKEN_DELAY_MS} ms`,
      stt: `embedded Whisper ${WHISPER_MODEL}, beam 1, encoder window at least ${WHISPER_MIN_WINDOW_S} s`,
      tts: 'api /v1/tts/stream, native voice (espeak-ng)',
      vad: 'Silero, min silence 450 ms; endpointing min delay 400 ms',
      worker_env: WORKER_ENV,
    },
    turns: {
      total_ms: stat(turns.map((t) => t.totalMs)),
      worker_end_of_speech_to_first_audio_ms: stat(turns.map((t) => t.workerMs)),
      transport_ms: stat(turns.map((t) => t.totalMs - t.workerMs)),
      end_of_utterance_delay_ms: stat(turns.map((t) => t.eouDelayMs)),
      transcription_delay_ms: stat(turns.map((t) => t.transcriptionDelayMs)),
      llm_ttft_ms: stat(turns.map((t) => t.llmTtftMs)),
      tts_ttfb_ms: stat(turns.map((t) => t.ttsTtfbMs)),
      each: turns.map((t) => ({
        question: t.question,
        total_ms: round(t.totalMs),
        worker_end_of_speech_to_first_audio_ms: t.workerMs,
        end_of_utterance_delay_ms: t.eouDelayMs,
        transcription_delay_ms: t.transcriptionDelayMs,
        llm_ttft_ms: t.llmTtftMs,
        tts_ttfb_ms: t.ttsTtfbMs,
      })),
    },
    paused: {
      pause_ms: PAUSE_MS,
      questions: paused.length,
      false_turn_ends: paused.filter((t) => t.userTurns !== 1).length,
      total_ms: stat(paused.map((t) => t.totalMs)),
      each: paused.map((t) => ({
        question: t.question,
        user_turns: t.userTurns,
        total_ms: round(t.totalMs),
        worker_end_of_speech_to_first_audio_ms: t.workerMs,
      })),
    },
    barge_in: {
      client_speech_to_agent_silent_ms: stat(bargeIns.map((b) => b.clientMs)),
      worker_detected_to_cleared_ms: stat(workerBargeIns),
      each: bargeIns.map((b) => ({
        client_ms: round(b.clientMs),
        worker_detected_to_cleared_ms: b.workerDetectedToClearedMs,
      })),
    },
  };
}

type Results = ReturnType<typeof buildResults>;

function summary(results: Results): string {
  const t = results.turns;
  const b = results.barge_in;
  // Column widths as the formatter (biome) lays Markdown tables out.
  const row = (name: string, s: { p50: number; p95: number }) =>
    `| ${name.padEnd(51)} | ${String(s.p50).padStart(6)} | ${String(s.p95).padStart(6)} |`;
  return [
    `Run on ${results.date.slice(0, 10)} with \`${results.command}\` on ${results.machine.cpus} × ${results.machine.cpu_model}, Node ${results.machine.node}, load average ${results.machine.load_average_1m} at the end. ${results.settings.turns} spoken turns (after one warm-up turn), ${results.settings.barge_ins} barge-ins, one session. LLM: ${results.settings.llm}; STT: ${results.settings.stt}; TTS: ${results.settings.tts}.`,
    '',
    `| ${'measure'.padEnd(51)} | p50 ms | p95 ms |`,
    `| ${'-'.repeat(51)} | -----: | -----: |`,
    row('client: end of user speech to first agent audio', t.total_ms),
    row(
      'worker: end of speech (VAD) to first audio frame',
      t.worker_end_of_speech_to_first_audio_ms,
    ),
    row('transport both ways (client - worker)', t.transport_ms),
    row('worker: end of utterance delay (VAD silence, STT)', t.end_of_utterance_delay_ms),
    row('worker: of which transcription delay', t.transcription_delay_ms),
    row('worker: LLM first token', t.llm_ttft_ms),
    row('worker: TTS first audio', t.tts_ttfb_ms),
    row(`paused questions (${results.paused.pause_ms} ms), client`, results.paused.total_ms),
    row('barge-in, client: user speech start to agent silent', b.client_speech_to_agent_silent_ms),
    row('barge-in, worker: detected to cleared', b.worker_detected_to_cleared_ms),
    '',
    `False turn ends: ${results.paused.false_turn_ends} of ${results.paused.questions} questions with a ${results.paused.pause_ms} ms pause after their first part.`,
  ].join('\n');
}

await main();
