/**
 * The streaming rows of the benchmark, shared by `npm run bench` and `bench/streaming.ts`:
 * closed-loop clients (each reads as fast as it can and starts its next utterance at once)
 * and realtime clients (each plays its audio in real time before speaking again).
 */
import type { OutputFormat } from '../../media/formats.ts';
import { quantile, round } from './stats.ts';
import {
  type ClosedLoopResult,
  closedLoopLoad,
  type RealtimeLoadResult,
  realtimeLoad,
  type StreamTarget,
} from './streaming.ts';
import { SHORT_TEXT, UTTERANCES } from './texts.ts';

export interface StreamingRounds {
  /** Closed-loop levels: clients and utterances per client. */
  closed: readonly { clients: number; perClient: number }[];
  loadSeconds: number;
  /** Over how long the realtime clients' first utterances start (default: one utterance). */
  rampMs?: number;
  pcmLadder: readonly number[];
  opusLadder: readonly number[];
}

export const STREAMING_ROUNDS: StreamingRounds = {
  closed: [
    { clients: 1, perClient: 100 },
    { clients: 10, perClient: 30 },
    { clients: 100, perClient: 10 },
  ],
  loadSeconds: 20,
  pcmLadder: [200, 300, 400],
  opusLadder: [80, 120, 160],
};

export const QUICK_STREAMING_ROUNDS: StreamingRounds = {
  closed: [
    { clients: 1, perClient: 20 },
    { clients: 100, perClient: 3 },
  ],
  loadSeconds: 4,
  pcmLadder: [50],
  opusLadder: [40],
};

export interface StreamingResults {
  closed: ClosedLoopResult[];
  loads: (RealtimeLoadResult & { format: OutputFormat })[];
}

/** The api under test: where it listens, a funded key, and its pid for CPU accounting. */
export interface StreamingServer {
  url: string;
  key: string;
  pid: number;
}

/** CPU seconds per audio second of the raw stages a format's stream goes through. */
export type RawCpu = (format: OutputFormat) => number;

export async function runStreamingBench(
  server: StreamingServer,
  voiceId: string,
  rounds: StreamingRounds,
  log: (line: string) => void,
): Promise<StreamingResults> {
  const results: StreamingResults = { closed: [], loads: [] };
  const pcm: StreamTarget = { ...server, voiceId, format: 'pcm_24000' };
  for (const level of rounds.closed) {
    log(`streaming closed loop x ${level.clients}`);
    // One utterance per client first, not counted: connections, engines and threads warm up.
    await closedLoopLoad(pcm, server.pid, level.clients, 1, SHORT_TEXT);
    results.closed.push(
      await closedLoopLoad(pcm, server.pid, level.clients, level.perClient, SHORT_TEXT),
    );
  }
  for (const [format, ladder] of [
    ['pcm_24000', rounds.pcmLadder],
    ['opus_48000_64', rounds.opusLadder],
  ] as const) {
    for (const streams of ladder) {
      log(`streaming ${format} x ${streams} realtime`);
      const load = await realtimeLoad(
        { ...pcm, format },
        server.pid,
        streams,
        rounds.loadSeconds,
        UTTERANCES,
        rounds.rampMs,
      );
      results.loads.push({ format, ...load });
    }
  }
  return results;
}

const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

export function streamingTable(results: StreamingResults, rawCpu: RawCpu): string {
  const lines = [
    'Streaming over loopback WebSocket, closed loop: each client opens a stream, sends one sentence (`pcm_24000`) and `stop`, reads as fast as it can, and opens its next stream at once:',
    '',
    '| clients | utterances | stop to first audio p50 ms | p99 ms | stop to finish p50 ms | utterances / s | errors | api CPU ms / utterance |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const level of results.closed) {
    lines.push(
      `| ${level.clients} | ${level.utterances} | ${fmt(quantile(level.ttfaMs, 0.5))} | ${fmt(quantile(level.ttfaMs, 0.99))} | ${fmt(quantile(level.finishMs, 0.5))} | ${fmt(level.utterances / level.wallS, 0)} | ${level.errors} | ${fmt((level.serverCpuS * 1000) / Math.max(1, level.utterances), 2)} |`,
    );
  }
  const failures = results.closed.filter((level) => level.errors > 0);
  if (failures.length > 0) {
    lines.push(
      '',
      `Failed utterances: ${failures
        .map(
          (level) =>
            `${level.clients} clients: ${Object.entries(level.errorKinds)
              .map(([kind, count]) => `${count} × ${kind}`)
              .join(', ')}`,
        )
        .join('; ')}.`,
    );
  }
  lines.push(
    '',
    'Concurrent realtime streams (each client plays its audio in real time, then speaks its next utterance on a new connection; an underrun is audio arriving more than 200 ms after playback needed it):',
    '',
    '| format | streams | utterances | stop to first audio p50 ms | p99 ms | underruns | errors | api CPU s / audio s | ratio CPU to raw stages |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const load of results.loads) {
    const cpu = load.serverCpuS / load.audioS;
    lines.push(
      `| ${load.format} | ${load.streams} | ${load.utterances} | ${fmt(quantile(load.ttfaMs, 0.5))} | ${fmt(quantile(load.ttfaMs, 0.99))} | ${load.underruns} | ${load.errors} | ${fmt(cpu, 4)} | ${fmt(cpu / rawCpu(load.format), 2)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Most streams of `format` that ran with no underrun, no error, and the first audio of
 * 99% of utterances within 250 ms of `stop` (0 if no load level did).
 */
export function sustainedStreams(results: StreamingResults, format: OutputFormat): number {
  return Math.max(
    0,
    ...results.loads
      .filter(
        (l) =>
          l.format === format &&
          l.underruns === 0 &&
          l.errors === 0 &&
          quantile(l.ttfaMs, 0.99) <= 250,
      )
      .map((l) => l.streams),
  );
}

export interface BenchTarget {
  name: string;
  value: number;
  /** A negative limit is a floor: the value (negated too) must be at least its magnitude. */
  limit: number;
}

export function streamingTargets(results: StreamingResults, rawCpu: RawCpu): BenchTarget[] {
  const closed = (clients: number) => results.closed.find((level) => level.clients === clients);
  const oneClient = closed(1);
  const hundred = closed(100);
  const highest = (format: OutputFormat) =>
    results.loads
      .filter((load) => load.format === format)
      .reduce<(typeof results.loads)[number] | undefined>(
        (best, load) => (best === undefined || load.streams > best.streams ? load : best),
        undefined,
      );
  return [
    ...(oneClient
      ? [
          {
            name: 'streaming pcm_24000 stop to first audio p50 ms, 1 client',
            value: quantile(oneClient.ttfaMs, 0.5),
            limit: 30,
          },
          {
            name: 'streaming pcm_24000 stop to first audio p99 ms, 1 client',
            value: quantile(oneClient.ttfaMs, 0.99),
            limit: 80,
          },
        ]
      : []),
    ...(hundred
      ? [
          {
            name: 'streaming pcm_24000 stop to first audio p99 ms, 100 closed-loop clients',
            value: hundred.errors > 0 ? Number.POSITIVE_INFINITY : quantile(hundred.ttfaMs, 0.99),
            limit: 250,
          },
        ]
      : []),
    ...results.loads
      .filter((load) => load.format === 'pcm_24000' && load.streams === 200)
      .map((load) => ({
        name: 'streaming pcm_24000 stop to first audio p99 ms, 200 realtime streams',
        value: quantile(load.ttfaMs, 0.99),
        limit: 250,
      })),
    {
      name: 'sustained realtime pcm_24000 streams',
      value: -sustainedStreams(results, 'pcm_24000'),
      limit: -300,
    },
    {
      name: 'sustained realtime opus_48000_64 streams',
      value: -sustainedStreams(results, 'opus_48000_64'),
      limit: -120,
    },
    ...(['pcm_24000', 'opus_48000_64'] as const).flatMap((format) => {
      const load = highest(format);
      return load
        ? [
            {
              name: `streaming ${format} CPU ratio to raw stages (${load.streams} realtime streams)`,
              value: load.serverCpuS / load.audioS / rawCpu(format),
              limit: 1.5,
            },
          ]
        : [];
    }),
  ];
}

/** The streaming part of a results file. */
export function streamingJson(results: StreamingResults, rawCpu: RawCpu): object {
  return {
    closed_loop: results.closed.map((level) => ({
      clients: level.clients,
      utterances: level.utterances,
      ttfa_ms: {
        p50: round(quantile(level.ttfaMs, 0.5)),
        p99: round(quantile(level.ttfaMs, 0.99)),
      },
      finish_ms: { p50: round(quantile(level.finishMs, 0.5)) },
      utterances_per_s: round(level.utterances / level.wallS, 1),
      errors: level.errors,
      error_kinds: level.errorKinds,
      server_cpu_ms_per_utterance: round(
        (level.serverCpuS * 1000) / Math.max(1, level.utterances),
        3,
      ),
    })),
    realtime: results.loads.map((load) => ({
      format: load.format,
      streams: load.streams,
      utterances: load.utterances,
      ttfa_ms: { p50: round(quantile(load.ttfaMs, 0.5)), p99: round(quantile(load.ttfaMs, 0.99)) },
      underruns: load.underruns,
      errors: load.errors,
      server_cpu_s_per_audio_s: round(load.serverCpuS / load.audioS, 5),
      ratio_cpu_to_raw: round(load.serverCpuS / load.audioS / rawCpu(load.format), 3),
    })),
    sustained_streams: {
      pcm_24000: sustainedStreams(results, 'pcm_24000'),
      opus_48000_64: sustainedStreams(results, 'opus_48000_64'),
    },
  };
}

/** Target lines for Markdown; floors (negative limits) read "at least". */
export function targetLines(targets: readonly (BenchTarget & { met: boolean })[]): string[] {
  return targets.map((entry) =>
    entry.limit < 0
      ? `- ${entry.met ? 'met' : 'MISSED'}: ${entry.name} = ${-entry.value} (at least ${-entry.limit})`
      : `- ${entry.met ? 'met' : 'MISSED'}: ${entry.name} = ${entry.value} (limit ${entry.limit})`,
  );
}

/** Rounds a target's figures and says whether it is met. */
export function judged(entry: BenchTarget): BenchTarget & { met: boolean } {
  return {
    ...entry,
    value: round(entry.value, 3),
    limit: round(entry.limit, 3),
    met: entry.value <= entry.limit,
  };
}
