/**
 * How many live conversations one machine holds: `npm run bench -- capacity [--quick]`
 * (alone: `node --import tsx bench/capacity.ts [--quick]`, with TEST_REDIS_URL set as
 * scripts/bench.sh sets it).
 *
 * On the voice bench's stack (bench/lib/voice-rig.ts: livekit-server, the compiled api with
 * the native voice, one compiled worker with the embedded Whisper and Silero, the OpenAI
 * chat fake answering after 200 ms), N = 1, 2, 4, 8 Agent sessions run at once on the one
 * worker. Each user (@livekit/rtc-node) says recorded questions one after another, its
 * first question offset by i / N of a question's cycle, so users ask while the others
 * speak or listen. Per N: voice to voice at the client (end of the user's words to the
 * agent's first loud frame, as bench/voice.ts measures it) p50 / p95 over every turn, the
 * worker's own end-of-speech-to-first-audio and transcription delay, the worker process
 * tree's CPU and the machine's busy share (the CPU part of the load the worker reports to
 * LiveKit, worker/load.ts), and the largest N whose p95 stays within 1.5 s.
 *
 * Writes bench/results/capacity[-quick].json and, for a full run, the section between
 * `<!-- capacity:start -->` and `<!-- capacity:end -->` of bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { dispose } from '@livekit/rtc-node';
import { RoomClient } from '../test/helpers/room-client.ts';
import '../test/helpers/rtc-log.ts';
import { STT_SENTENCES } from '../test/helpers/stt-sentences.ts';
import { waitFor } from '../test/helpers/wait.ts';
import { CpuSampler } from '../worker/load.ts';
import { replaceReadmeSection } from './lib/readme-section.ts';
import { processTreeCpuSeconds, quantile, round } from './lib/stats.ts';
import { type StartedSession, VoiceRig } from './lib/voice-rig.ts';
import { agentQuiet, type MeasuredTurn, measuredTurn } from './lib/voice-turn.ts';

const quick = process.argv.includes('--quick');
const LEVELS = quick ? [1, 2] : [1, 2, 4, 8];
const TURNS_PER_USER = quick ? 2 : 3;
/** A question (2-3 s), its answer (about 1.5 s) and the pause between: one user's cycle. */
const CYCLE_MS = 5000;
/** A conversation counts as held while its turns' p95 stays within this. */
const P95_LIMIT_MS = 1500;
/** A turn whose answer has not started by then counts as unanswered. */
const ANSWER_TIMEOUT_MS = 20_000;
const LLM_FIRST_TOKEN_DELAY_MS = 200;
const WHISPER_MODEL = process.env.WHISPER_MODEL ?? 'base';

interface Conversation {
  session: StartedSession;
  client: RoomClient;
}

interface Level {
  sessions: number;
  turns: MeasuredTurn[];
  unanswered: number;
  workerCores: number;
  machineBusy: number;
  /** Why the level could not run (a session that did not start): the machine's limit. */
  failure?: string;
}

async function openConversation(rig: VoiceRig): Promise<Conversation> {
  // A start no worker took in time answers the retryable provider_unavailable; a client
  // retries it, and so does the bench (a new job process may still be loading its models).
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const session = await rig.startSession();
      const client = await RoomClient.join(session.url, session.token);
      await client.waitUntil(() => client.loudFramesSince(0) > 10, 60_000, 'the greeting');
      await agentQuiet(client, 'after the greeting');
      return { session, client };
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** One user's questions, started `offsetMs` into the level. */
async function userTurns(
  rig: VoiceRig,
  conversation: Conversation,
  user: number,
  offsetMs: number,
) {
  await new Promise((resolve) => setTimeout(resolve, offsetMs));
  const turns: MeasuredTurn[] = [];
  let unanswered = 0;
  for (let t = 0; t < TURNS_PER_USER; t++) {
    const question = STT_SENTENCES[(user * TURNS_PER_USER + t) % STT_SENTENCES.length] as string;
    try {
      turns.push(
        await measuredTurn(
          rig.worker,
          conversation.client,
          conversation.session.sessionId,
          question,
          {
            answerTimeoutMs: ANSWER_TIMEOUT_MS,
          },
        ),
      );
    } catch (error) {
      unanswered += 1;
      process.stderr.write(`  user ${user + 1}: ${(error as Error).message}\n`);
    }
  }
  return { turns, unanswered };
}

async function runLevel(rig: VoiceRig, n: number): Promise<Level> {
  const conversations: Conversation[] = [];
  try {
    for (let i = 0; i < n; i++) conversations.push(await openConversation(rig));
    // One turn per user first, one at a time: each job process's Whisper is loaded and warm.
    for (const c of conversations) {
      await measuredTurn(rig.worker, c.client, c.session.sessionId, STT_SENTENCES[4] as string);
    }
    const pid = rig.worker.child.pid as number;
    const cpuBefore = processTreeCpuSeconds(pid);
    const machine = new CpuSampler();
    const from = performance.now();
    const results = await Promise.all(
      conversations.map((c, i) => userTurns(rig, c, i, (i * CYCLE_MS) / n)),
    );
    const seconds = (performance.now() - from) / 1000;
    return {
      sessions: n,
      turns: results.flatMap((r) => r.turns),
      unanswered: results.reduce((sum, r) => sum + r.unanswered, 0),
      workerCores: round((processTreeCpuSeconds(pid) - cpuBefore) / seconds, 2),
      machineBusy: round(machine.sample(), 2),
    };
  } finally {
    for (const c of conversations) await c.client.leave().catch(() => {});
    for (const c of conversations) await ended(rig, c.session.sessionId);
  }
}

/** Waits for a session to end after its user left, so the next level starts on free slots. */
async function ended(rig: VoiceRig, sessionId: string): Promise<void> {
  await waitFor(
    async () => (await rig.api('GET', `/v1/agent-sessions/${sessionId}`)).body.state !== 'active',
    { what: `session ${sessionId} to end`, timeoutMs: 60_000 },
  );
}

function stat(values: number[]) {
  if (values.length === 0) return { p50: null, p95: null };
  return { p50: Math.round(quantile(values, 0.5)), p95: Math.round(quantile(values, 0.95)) };
}

function buildResults(levels: Level[]) {
  const rows = levels.map((level) => ({
    sessions: level.sessions,
    turns: level.turns.length,
    unanswered: level.unanswered,
    client_total_ms: stat(level.turns.map((t) => t.totalMs)),
    worker_end_of_speech_to_first_audio_ms: stat(level.turns.map((t) => t.workerMs)),
    transcription_delay_ms: stat(level.turns.map((t) => t.transcriptionDelayMs)),
    worker_cores: level.workerCores,
    machine_busy: level.machineBusy,
    failure: level.failure ?? null,
  }));
  const held = rows.filter(
    (row) =>
      row.failure === null &&
      row.unanswered === 0 &&
      row.client_total_ms.p95 !== null &&
      row.client_total_ms.p95 <= P95_LIMIT_MS,
  );
  return {
    date: new Date().toISOString(),
    command: `node --import tsx bench/capacity.ts${quick ? ' --quick' : ''}`,
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      load_average_1m: round(loadavg()[0] ?? 0, 2),
    },
    settings: {
      turns_per_user: TURNS_PER_USER,
      cycle_ms: CYCLE_MS,
      p95_limit_ms: P95_LIMIT_MS,
      llm: `OpenAI chat fake, first token after ${LLM_FIRST_TOKEN_DELAY_MS} ms`,
      stt: `embedded Whisper ${WHISPER_MODEL} in each job process`,
      tts: 'api /v1/tts/stream, native voice (espeak-ng)',
    },
    levels: rows,
    largest_held: held.reduce((best, row) => Math.max(best, row.sessions), 0),
  };
}

type Results = ReturnType<typeof buildResults>;

function summary(results: Results): string {
  const cell = (s: { p50: number | null; p95: number | null }) =>
    `${s.p50 ?? '-'} / ${s.p95 ?? '-'}`;
  const lines = [
    `Run on ${results.date.slice(0, 10)} with \`${results.command}\` on ${results.machine.cpus} × ${results.machine.cpu_model}, Node ${results.machine.node}, load average ${results.machine.load_average_1m} at the end. ${results.settings.turns_per_user} measured turns per user (after one warm-up turn each), users offset by ${results.settings.cycle_ms} ms / N. LLM: ${results.settings.llm}; STT: ${results.settings.stt}; TTS: ${results.settings.tts}.`,
    '',
    '| sessions | turns | unanswered | client voice to voice p50 / p95 ms | worker end of speech to first audio p50 / p95 ms | transcription delay p50 / p95 ms | worker CPU (cores) | machine busy |',
    '| -------: | ----: | ---------: | ---------------------------------: | -----------------------------------------------: | -------------------------------: | -----------------: | -----------: |',
    ...results.levels.map(
      (row) =>
        `| ${row.sessions} | ${row.turns} | ${row.unanswered} | ${cell(row.client_total_ms)} | ${cell(row.worker_end_of_speech_to_first_audio_ms)} | ${cell(row.transcription_delay_ms)} | ${row.worker_cores} | ${row.machine_busy} |`,
    ),
    ...results.levels.flatMap((row) =>
      row.failure ? ['', `${row.sessions} sessions could not run: ${row.failure}.`] : [],
    ),
    '',
    `Largest N with every turn answered and p95 within ${results.settings.p95_limit_ms} ms: **${results.largest_held}**.`,
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  process.stderr.write(`bench capacity: ${LEVELS.join(', ')} sessions\n`);
  const rig = await VoiceRig.start({
    llmFirstTokenDelayMs: LLM_FIRST_TOKEN_DELAY_MS,
    whisperModel: WHISPER_MODEL,
    whisperMinWindowS: 10,
    workerEnv: {
      WORKER_MAX_SESSIONS: String(Math.max(...LEVELS)),
      WORKER_IDLE_PROCESSES: '2',
    },
  });
  const levels: Level[] = [];
  try {
    for (const n of LEVELS) {
      const level = await runLevel(rig, n).catch(
        (error: unknown): Level => ({
          sessions: n,
          turns: [],
          unanswered: 0,
          workerCores: 0,
          machineBusy: 0,
          failure: (error as Error).message,
        }),
      );
      const p = stat(level.turns.map((t) => t.totalMs));
      process.stderr.write(
        `  ${n} sessions: ${p.p50} / ${p.p95} ms, ${level.unanswered} unanswered\n`,
      );
      levels.push(level);
      // More sessions than the machine could start will not start either.
      if (level.failure) {
        process.stderr.write(`  ${n} sessions could not run: ${level.failure}\n`);
        const logPath = path.join(import.meta.dirname, 'results', 'capacity-worker.log');
        writeFileSync(
          logPath,
          rig.worker
            .logs()
            .map((l) => JSON.stringify(l))
            .join('\n'),
        );
        break;
      }
    }
  } catch (error) {
    // What the worker logged is what explains a failed level.
    const logPath = path.join(import.meta.dirname, 'results', 'capacity-worker.log');
    mkdirSync(path.dirname(logPath), { recursive: true });
    writeFileSync(
      logPath,
      rig.worker
        .logs()
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    process.stderr.write(`worker log: ${logPath}\n`);
    throw error;
  } finally {
    await rig.close();
    await dispose();
  }
  const results = buildResults(levels);
  const dir = path.join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, quick ? 'capacity-quick.json' : 'capacity.json'),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  const section = summary(results);
  process.stdout.write(`\n${section}\n`);
  if (!quick) replaceReadmeSection('capacity', section);
}

await main();
