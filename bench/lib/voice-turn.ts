// One spoken turn of a live conversation as the voice benches measure it: the user's client
// says a recorded question, and the time runs from the end of its words to the agent's
// first loud frame at the client, beside the worker's own figures from its log lines.
import {
  lastWordEndMs,
  type RoomClient,
  SPEECH_RMS,
  speech,
} from '../../test/helpers/room-client.ts';
import type { WorkerProcess } from '../../test/helpers/worker.ts';

/** The agent counts as quiet after this long without a loud frame. */
export const QUIET_MS = 800;

export interface MeasuredTurn {
  question: string;
  /** Client: end of the user's words to the first loud agent frame. */
  totalMs: number;
  /** Worker: end of speech (VAD) to the reply's first frame sent. */
  workerMs: number;
  /** Worker: end of speech to the final transcript. */
  transcriptionDelayMs: number;
}

export function lastLoudAt(client: RoomClient): number {
  return client.agentAudio.filter((f) => f.rms > SPEECH_RMS).at(-1)?.atMs ?? 0;
}

export async function agentQuiet(client: RoomClient, what: string): Promise<void> {
  await client.waitUntil(
    () => performance.now() - lastLoudAt(client) > QUIET_MS,
    120_000,
    `the agent to be quiet (${what})`,
  );
}

/**
 * The last log line named `msg` among `lines`, its numeric `field`: the reply that was
 * spoken (a preemptive answer is discarded before it logs its own model metrics).
 */
export function metric(lines: Record<string, unknown>[], msg: string, field: string): number {
  const line = lines.findLast((l) => l.msg === msg);
  const value = line?.[field];
  if (typeof value !== 'number') throw new Error(`no "${msg}" log line with ${field}`);
  return value;
}

/**
 * Says `question` into the session and waits for the answer to start and end. The worker's
 * figures are read from the lines of `sessionId` it logged after the question began.
 */
export async function measuredTurn(
  worker: WorkerProcess,
  client: RoomClient,
  sessionId: string,
  question: string,
  options: { answerTimeoutMs?: number } = {},
): Promise<MeasuredTurn> {
  const samples = await speech(question);
  const logsFrom = worker.logs().length;
  const spoken = await client.say(samples, 1200);
  const wordsEndedAt = spoken.startMs + lastWordEndMs(samples);
  const firstAudio = await client.waitUntil(
    () => client.agentAudio.find((f) => f.atMs > wordsEndedAt && f.rms > SPEECH_RMS),
    options.answerTimeoutMs ?? 180_000,
    `the answer to "${question}"`,
  );
  await agentQuiet(client, 'after the answer');
  const lines = worker
    .logs()
    .slice(logsFrom)
    .filter((l) => l.session_id === sessionId);
  return {
    question,
    totalMs: firstAudio.atMs - wordsEndedAt,
    workerMs: metric(lines, 'turn metrics: first audio', 'end_of_speech_to_first_audio_ms'),
    transcriptionDelayMs: metric(lines, 'turn metrics: end of utterance', 'transcription_delay_ms'),
  };
}
