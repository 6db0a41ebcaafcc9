/**
 * The streaming rows of `npm run bench` alone, beside the raw stages they are compared
 * with:
 *
 *   node --import tsx bench/streaming.ts [--quick] [--closed-only | --realtime-only] [--ramp-ms N]
 *
 * `--ramp-ms N`: the realtime clients' first utterances start within N ms (default 4,000,
 * about one utterance). Needs a Redis in `TEST_REDIS_URL` and the compiled service
 * (`npm run build`), like the full bench; service settings pass through as there
 * (bench/lib/oneshot.ts). Prints Markdown and writes bench/results/streaming[-quick].json;
 * bench/README.md is left alone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { DEFAULT_OPUS_COMPLEXITY } from '../media/codecs/opus-ogg.ts';
import type { OutputFormat } from '../media/formats.ts';
import { NATIVE_VOICES } from '../src/tts/providers/native/index.ts';
import { OneShotTarget } from './lib/oneshot.ts';
import { espeakPcm, rawEspeak, rawFfmpegEncode } from './lib/raw.ts';
import { processTreeCpuSeconds, runConcurrently } from './lib/stats.ts';
import {
  judged,
  QUICK_STREAMING_ROUNDS,
  runStreamingBench,
  STREAMING_ROUNDS,
  streamingJson,
  streamingTable,
  streamingTargets,
  targetLines,
} from './lib/streaming-bench.ts';
import { BENCH_ESPEAK_VOICE, LONG_TEXT } from './lib/texts.ts';

const quick = process.argv.includes('--quick');
const closedOnly = process.argv.includes('--closed-only');
const realtimeOnly = process.argv.includes('--realtime-only');
const rampArg = process.argv.indexOf('--ramp-ms');
const rampMs = rampArg >= 0 ? Number(process.argv[rampArg + 1]) : undefined;
const rounds = {
  ...(quick ? QUICK_STREAMING_ROUNDS : STREAMING_ROUNDS),
  ...(rampMs === undefined ? {} : { rampMs }),
};
const log = (line: string) => process.stderr.write(`  ${line}\n`);

/** CPU seconds per audio second of a raw stage: the long text, 8 at a time, as in run.ts. */
async function rawCpuPerAudioS(task: () => Promise<number>, runs: number): Promise<number> {
  let audioS = 0;
  const before = processTreeCpuSeconds();
  await runConcurrently(runs, 8, async () => {
    // Not `audioS += await task()`: that reads `audioS` before the await and loses the
    // other runs' additions.
    const audio = await task();
    audioS += audio;
  });
  return (processTreeCpuSeconds() - before) / audioS;
}

const voice = NATIVE_VOICES.find((entry) => entry.providerVoiceId === BENCH_ESPEAK_VOICE);
if (!voice) throw new Error(`no catalog voice uses ${BENCH_ESPEAK_VOICE}`);
log('raw stages');
const longPcm = await espeakPcm(LONG_TEXT, BENCH_ESPEAK_VOICE);
const longAudioS = longPcm.byteLength / 2 / 22050;
const raw = {
  espeak: await rawCpuPerAudioS(
    async () => (await rawEspeak(LONG_TEXT, BENCH_ESPEAK_VOICE)).audioS,
    quick ? 8 : 32,
  ),
  opus: await rawCpuPerAudioS(
    async () => {
      await rawFfmpegEncode('opus', longPcm, DEFAULT_OPUS_COMPLEXITY);
      return longAudioS;
    },
    quick ? 8 : 32,
  ),
};
const rawCpu = (format: OutputFormat) => raw.espeak + (format.startsWith('opus') ? raw.opus : 0);

const target = new OneShotTarget();
await target.start();
let results: Awaited<ReturnType<typeof runStreamingBench>>;
try {
  results = await runStreamingBench(
    { url: target.url, key: target.key, pid: target.pid },
    voice.id,
    closedOnly
      ? { ...rounds, pcmLadder: [], opusLadder: [] }
      : realtimeOnly
        ? { ...rounds, closed: [] }
        : rounds,
    log,
  );
} finally {
  await target.stop();
}
const targets = streamingTargets(results, rawCpu).map(judged);
const date = new Date().toISOString();
const lines = [
  `Run on ${date.slice(0, 10)} with \`node --import tsx bench/streaming.ts${quick ? ' --quick' : ''}${closedOnly ? ' --closed-only' : ''}${realtimeOnly ? ' --realtime-only' : ''}${rampMs === undefined ? '' : ` --ramp-ms ${rampMs}`}\` on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}. Raw stages: espeak-ng ${(raw.espeak * 1000).toFixed(2)} ms of CPU per audio second, ffmpeg libopus ${(raw.opus * 1000).toFixed(2)} ms.`,
  '',
  streamingTable(results, rawCpu),
  '',
  'Targets:',
  '',
  ...targetLines(targets),
];
process.stdout.write(`${lines.join('\n')}\n`);
const benchDir = import.meta.dirname;
mkdirSync(path.join(benchDir, 'results'), { recursive: true });
writeFileSync(
  path.join(benchDir, 'results', quick ? 'streaming-quick.json' : 'streaming.json'),
  `${JSON.stringify(
    {
      date,
      command: process.argv.slice(2).join(' '),
      raw_cpu_s_per_audio_s: raw,
      streaming: streamingJson(results, rawCpu),
      targets,
    },
    null,
    2,
  )}\n`,
);
