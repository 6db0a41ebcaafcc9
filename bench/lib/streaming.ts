import WebSocket from 'ws';
import { getOutputFormatInfo, type OutputFormat } from '../../media/formats.ts';
import { nowMs, processTreeCpuSeconds } from './stats.ts';

/** Audio a player holds before it starts; arriving later than this behind playback is an underrun. */
const JITTER_BUFFER_MS = 200;

/** About the length of one utterance of `UTTERANCES` (bench/lib/texts.ts). */
export const REALTIME_RAMP_MS = 4_000;

export interface UtteranceResult {
  /** From sending `stop` to the first `audio` event. */
  ttfaMs: number;
  /** From sending `stop` to the `finish` event. */
  finishMs: number;
  audioMs: number;
  /** Audio arrived later than playback needed it. */
  underrun: boolean;
}

export interface StreamTarget {
  url: string;
  key: string;
  voiceId: string;
  format: OutputFormat;
  /** Word timings on the `audio` events (`alignment: "word"`); off when absent. */
  alignment?: 'word';
}

/** One utterance on its own WebSocket: start, text, stop; resolves at `finish`. */
export function streamUtterance(target: StreamTarget, text: string): Promise<UtteranceResult> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${target.url.replace(/^http/, 'ws')}/v1/tts/stream`, {
      headers: { authorization: `Bearer ${target.key}` },
      perMessageDeflate: false,
    });
    const counter = getOutputFormatInfo(target.format).createDurationCounter();
    let stoppedAt = 0;
    let firstAudioAt = 0;
    let underrun = false;
    socket.on('open', () => {
      socket.send(
        JSON.stringify({
          event: 'start',
          request: {
            voice_id: target.voiceId,
            output_format: target.format,
            ...(target.alignment ? { alignment: target.alignment } : {}),
          },
        }),
      );
      socket.send(JSON.stringify({ event: 'text', text }));
      stoppedAt = nowMs();
      socket.send(JSON.stringify({ event: 'stop' }));
    });
    socket.on('message', (data) => {
      const event = JSON.parse(data.toString()) as { event: string; audio?: string; code?: string };
      if (event.event === 'audio') {
        const now = nowMs();
        if (firstAudioAt === 0) firstAudioAt = now;
        else if (counter.durationMs + JITTER_BUFFER_MS < now - firstAudioAt) underrun = true;
        counter.push(Buffer.from(event.audio as string, 'base64'));
      } else if (event.event === 'finish') {
        resolve({
          ttfaMs: firstAudioAt - stoppedAt,
          finishMs: nowMs() - stoppedAt,
          audioMs: counter.durationMs,
          underrun,
        });
      } else if (event.event === 'error') {
        reject(new Error(`stream error ${event.code}`));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('closed before finish')));
  });
}

export interface RealtimeLoadResult {
  streams: number;
  utterances: number;
  ttfaMs: number[];
  underruns: number;
  audioS: number;
  /** CPU seconds of the api process (and its subprocesses) during the run. */
  serverCpuS: number;
  errors: number;
}

/**
 * `streams` clients, each speaking utterances back to back and playing them in real time
 * (the next utterance starts when the previous one has played), for `seconds`.
 */
export async function realtimeLoad(
  target: StreamTarget,
  serverPid: number,
  streams: number,
  seconds: number,
  texts: readonly string[],
  rampMs = REALTIME_RAMP_MS,
): Promise<RealtimeLoadResult> {
  const result: RealtimeLoadResult = {
    streams,
    utterances: 0,
    ttfaMs: [],
    underruns: 0,
    audioS: 0,
    serverCpuS: 0,
    errors: 0,
  };
  const cpuBefore = processTreeCpuSeconds(serverPid);
  const deadline = nowMs() + seconds * 1000;
  const clients = Array.from({ length: streams }, async (_, index) => {
    // Spread the first utterances evenly over about one utterance's length, so the
    // streams run out of phase, as independent conversations do. (Started within one
    // second, utterances of equal length kept every client in phase for the whole run: a
    // burst of all stream starts every few seconds rather than a steady load.)
    await sleep((index / streams) * rampMs);
    let turn = index;
    while (nowMs() < deadline) {
      const text = texts[turn++ % texts.length] as string;
      try {
        const started = nowMs();
        const utterance = await streamUtterance(target, text);
        result.utterances++;
        result.ttfaMs.push(utterance.ttfaMs);
        if (utterance.underrun) result.underruns++;
        result.audioS += utterance.audioMs / 1000;
        await sleep(Math.max(0, started + utterance.ttfaMs + utterance.audioMs - nowMs()));
      } catch {
        result.errors++;
        await sleep(100);
      }
    }
  });
  await Promise.all(clients);
  result.serverCpuS = processTreeCpuSeconds(serverPid) - cpuBefore;
  return result;
}

export interface ClosedLoopResult {
  clients: number;
  utterances: number;
  ttfaMs: number[];
  finishMs: number[];
  wallS: number;
  audioS: number;
  /** CPU seconds of the api process (and its subprocesses) during the run. */
  serverCpuS: number;
  errors: number;
  /** How many failed, by what they saw (error code, or the connection closing early). */
  errorKinds: Record<string, number>;
}

/**
 * `clients` clients, each speaking `perClient` utterances of `text` back to back, one
 * WebSocket each, reading as fast as it can and opening the next stream at once.
 */
export async function closedLoopLoad(
  target: StreamTarget,
  serverPid: number,
  clients: number,
  perClient: number,
  text: string,
): Promise<ClosedLoopResult> {
  const result: ClosedLoopResult = {
    clients,
    utterances: 0,
    ttfaMs: [],
    finishMs: [],
    wallS: 0,
    audioS: 0,
    serverCpuS: 0,
    errors: 0,
    errorKinds: {},
  };
  const cpuBefore = processTreeCpuSeconds(serverPid);
  const started = nowMs();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < perClient; i++) {
        try {
          const utterance = await streamUtterance(target, text);
          result.utterances++;
          result.ttfaMs.push(utterance.ttfaMs);
          result.finishMs.push(utterance.finishMs);
          result.audioS += utterance.audioMs / 1000;
        } catch (error) {
          result.errors++;
          const kind = (error as Error).message;
          result.errorKinds[kind] = (result.errorKinds[kind] ?? 0) + 1;
        }
      }
    }),
  );
  result.wallS = (nowMs() - started) / 1000;
  result.serverCpuS = processTreeCpuSeconds(serverPid) - cpuBefore;
  return result;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
