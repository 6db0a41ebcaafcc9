/**
 * `npm run bench`: the native engine, the media pipeline and one-shot HTTP synthesis,
 * measured side by side with the raw stages in one run. Prints a table, writes
 * bench/results/latest.json and refreshes the table in bench/README.md.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { DEFAULT_OPUS_COMPLEXITY } from '../media/codecs/opus-ogg.ts';
import type { OutputFormat } from '../media/formats.ts';
import { NATIVE_OUTPUT_FORMATS, NATIVE_VOICES } from '../src/tts/providers/native/index.ts';
import { type OneShotResult, OneShotTarget } from './lib/oneshot.ts';
import { PipelineRunner } from './lib/pipeline.ts';
import {
  commandVersion,
  espeakPcm,
  type RawEncoder,
  rawEspeak,
  rawFfmpegEncode,
} from './lib/raw.ts';
import { processTreeCpuSeconds, quantile, round, runConcurrently } from './lib/stats.ts';
import {
  judged,
  QUICK_STREAMING_ROUNDS,
  runStreamingBench,
  STREAMING_ROUNDS,
  type StreamingResults,
  streamingJson,
  streamingTable,
  streamingTargets,
  targetLines,
} from './lib/streaming-bench.ts';
import { BENCH_ESPEAK_VOICE, LONG_TEXT, SHORT_TEXT } from './lib/texts.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = {
  ttfa: quick ? 10 : 60,
  longSequential: quick ? 2 : 6,
  longConcurrent: quick ? 8 : 32,
  oneShot1: quick ? 30 : 200,
  oneShot32: quick ? 200 : 1600,
  streaming: quick ? QUICK_STREAMING_ROUNDS : STREAMING_ROUNDS,
};
const opusComplexity = DEFAULT_OPUS_COMPLEXITY;

interface Timing {
  firstByteMs: number;
  wallMs: number;
  audioS: number;
}

interface Row {
  id: string;
  kind: 'raw' | 'pipeline';
  format: OutputFormat | null;
  /** Raw rows this pipeline row is compared with. */
  uses: string[];
  ttfaMs: { p50: number; p95: number };
  shortWallMs: { p50: number; p95: number };
  audioSPerWallS: { c1: number; c8: number };
  cpuSPerAudioS: number;
  ratioToRaw: { ttfaP50: number; cpu: number } | null;
}

async function measure(
  id: string,
  kind: Row['kind'],
  format: OutputFormat | null,
  uses: string[],
  runShort: () => Promise<Timing>,
  runLong: () => Promise<Timing>,
  settle: () => Promise<void> = async () => {},
): Promise<Row> {
  process.stderr.write(`  ${id}\n`);
  for (let i = 0; i < 3; i++) await runShort();
  const firstBytes: number[] = [];
  const walls: number[] = [];
  for (let i = 0; i < ROUNDS.ttfa; i++) {
    const timing = await runShort();
    firstBytes.push(timing.firstByteMs);
    walls.push(timing.wallMs);
  }
  let audio1 = 0;
  const wall1 = await runConcurrently(ROUNDS.longSequential, 1, async () => {
    const timing = await runLong();
    audio1 += timing.audioS;
  });
  let audio8 = 0;
  const cpuBefore = processTreeCpuSeconds();
  const wall8 = await runConcurrently(ROUNDS.longConcurrent, 8, async () => {
    const timing = await runLong();
    audio8 += timing.audioS;
  });
  // Read while the engines still run: live descendants count with their own reaped
  // children (the long-lived engine's per-voice templates and utterance forks). Closing the
  // engines first lost that share, since a killed engine's templates are never reaped here.
  const cpu8 = processTreeCpuSeconds() - cpuBefore;
  await settle();
  return {
    id,
    kind,
    format,
    uses,
    ttfaMs: { p50: quantile(firstBytes, 0.5), p95: quantile(firstBytes, 0.95) },
    shortWallMs: { p50: quantile(walls, 0.5), p95: quantile(walls, 0.95) },
    audioSPerWallS: { c1: audio1 / (wall1 / 1000), c8: audio8 / (wall8 / 1000) },
    cpuSPerAudioS: cpu8 / audio8,
    ratioToRaw: null,
  };
}

async function rawEncoderRow(
  encoder: RawEncoder,
  shortPcm: Buffer,
  longPcm: Buffer,
  audio: { short: number; long: number },
) {
  const run = async (pcm: Buffer, audioS: number): Promise<Timing> => ({
    ...(await rawFfmpegEncode(encoder, pcm, opusComplexity)),
    audioS,
  });
  return measure(
    encoder === 'opus' ? 'raw ffmpeg libopus 64k' : 'raw ffmpeg aac 128k',
    'raw',
    null,
    [],
    () => run(shortPcm, audio.short),
    () => run(longPcm, audio.long),
  );
}

function table(rows: Row[], oneShot: OneShotResult[], rawShortWallP50: number): string {
  const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
  const lines = [
    '| row | TTFA p50 ms | TTFA p95 ms | audio s / wall s, 1 | audio s / wall s, 8 | CPU s / audio s (8) | ratio TTFA p50 | ratio CPU |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.id} | ${fmt(row.ttfaMs.p50)} | ${fmt(row.ttfaMs.p95)} | ${fmt(row.audioSPerWallS.c1, 0)} | ${fmt(row.audioSPerWallS.c8, 0)} | ${fmt(row.cpuSPerAudioS, 4)} | ${row.ratioToRaw ? fmt(row.ratioToRaw.ttfaP50, 2) : ''} | ${row.ratioToRaw ? fmt(row.ratioToRaw.cpu, 2) : ''} |`,
    );
  }
  lines.push(
    '',
    `One-shot \`POST /v1/tts\`, one sentence, \`pcm_24000\`, over loopback HTTP (raw engine wall time for the same sentence: p50 ${fmt(rawShortWallP50)} ms; target p50 at most ${fmt(rawShortWallP50 * 1.5 + 5)} ms):`,
    '',
    '| clients | requests | latency p50 ms | latency p95 ms | requests / s | api CPU ms / request |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const result of oneShot) {
    lines.push(
      `| ${result.concurrency} | ${result.requests} | ${fmt(result.latencyMs.p50)} | ${fmt(result.latencyMs.p95)} | ${fmt(result.requestsPerS, 0)} | ${fmt(result.serverCpuMsPerRequest, 2)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const voice = BENCH_ESPEAK_VOICE;
  const publicVoice = NATIVE_VOICES.find((entry) => entry.providerVoiceId === voice);
  if (!publicVoice) throw new Error(`no catalog voice uses ${voice}`);
  process.stderr.write(`bench: ${quick ? 'quick' : 'full'} run\n`);

  const shortPcm = await espeakPcm(SHORT_TEXT, voice);
  const longPcm = await espeakPcm(LONG_TEXT, voice);
  const audio = { short: shortPcm.byteLength / 2 / 22050, long: longPcm.byteLength / 2 / 22050 };

  const rows: Row[] = [];
  const espeakRun = (text: string) => rawEspeak(text, voice);
  rows.push(
    await measure(
      'raw espeak-ng --stdout',
      'raw',
      null,
      [],
      () => espeakRun(SHORT_TEXT),
      () => espeakRun(LONG_TEXT),
    ),
  );
  rows.push(await rawEncoderRow('opus', shortPcm, longPcm, audio));
  rows.push(await rawEncoderRow('aac', shortPcm, longPcm, audio));
  const [rawEspeakRow, rawOpusRow, rawAacRow] = rows as [Row, Row, Row];

  for (const format of NATIVE_OUTPUT_FORMATS) {
    const runner = new PipelineRunner(opusComplexity);
    const uses = format.startsWith('opus')
      ? [rawEspeakRow, rawOpusRow]
      : format.startsWith('aac')
        ? [rawEspeakRow, rawAacRow]
        : [rawEspeakRow];
    const row = await measure(
      `pipeline ${format}`,
      'pipeline',
      format,
      uses.map((raw) => raw.id),
      () => runner.run(SHORT_TEXT, voice, format),
      () => runner.run(LONG_TEXT, voice, format),
      () => runner.close(),
    );
    const rawTtfa = uses.reduce((sum, raw) => sum + raw.ttfaMs.p50, 0);
    const rawCpu = uses.reduce((sum, raw) => sum + raw.cpuSPerAudioS, 0);
    row.ratioToRaw = { ttfaP50: row.ttfaMs.p50 / rawTtfa, cpu: row.cpuSPerAudioS / rawCpu };
    rows.push(row);
  }

  process.stderr.write('  one-shot HTTP\n');
  const target = new OneShotTarget();
  const oneShot: OneShotResult[] = [];
  await target.start();
  let streaming: StreamingResults = { closed: [], loads: [] };
  try {
    oneShot.push(await target.measure(publicVoice.id, SHORT_TEXT, 1, ROUNDS.oneShot1));
    oneShot.push(await target.measure(publicVoice.id, SHORT_TEXT, 32, ROUNDS.oneShot32));
    streaming = await runStreamingBench(
      { url: target.url, key: target.key, pid: target.pid },
      publicVoice.id,
      ROUNDS.streaming,
      (line) => process.stderr.write(`  ${line}\n`),
    );
  } finally {
    await target.stop();
  }

  const date = new Date().toISOString();
  const machine = {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    espeak_ng: await commandVersion('espeak-ng', ['--version']),
    ffmpeg: await commandVersion('ffmpeg', ['-version']),
  };
  const rawShortWallP50 = rawEspeakRow.shortWallMs.p50;
  const rawCpu = (format: OutputFormat) =>
    rawEspeakRow.cpuSPerAudioS +
    (format.startsWith('opus')
      ? rawOpusRow.cpuSPerAudioS
      : format.startsWith('aac')
        ? rawAacRow.cpuSPerAudioS
        : 0);
  const pipeline = (format: OutputFormat) => rows.find((row) => row.format === format) as Row;
  const targets = [
    { name: 'pipeline pcm_24000 TTFA p50 ms', value: pipeline('pcm_24000').ttfaMs.p50, limit: 25 },
    {
      name: 'pipeline opus_48000_64 TTFA p50 ms',
      value: pipeline('opus_48000_64').ttfaMs.p50,
      limit: 40,
    },
    ...rows
      .filter((row) => row.kind === 'pipeline')
      .map((row) => ({
        name: `${row.id} CPU ratio to raw stages (8 concurrent)`,
        value: row.ratioToRaw?.cpu ?? Number.NaN,
        limit: 1.3,
      })),
    {
      name: 'one-shot pcm_24000 latency p50 ms, 1 client',
      value: oneShot[0]?.latencyMs.p50 ?? Number.NaN,
      limit: rawShortWallP50 * 1.5 + 5,
    },
    ...streamingTargets(streaming, rawCpu),
  ].map(judged);

  const results = {
    date,
    command: `npm run bench${quick ? ' -- --quick' : ''}`,
    machine,
    settings: { voice: publicVoice.id, opus_complexity: opusComplexity, rounds: ROUNDS },
    texts: {
      short_chars: SHORT_TEXT.length,
      long_chars: LONG_TEXT.length,
      short_audio_s: round(audio.short, 3),
      long_audio_s: round(audio.long, 3),
    },
    rows: rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      format: row.format,
      uses: row.uses,
      ttfa_ms: { p50: round(row.ttfaMs.p50), p95: round(row.ttfaMs.p95) },
      short_wall_ms: { p50: round(row.shortWallMs.p50), p95: round(row.shortWallMs.p95) },
      audio_s_per_wall_s: {
        c1: round(row.audioSPerWallS.c1, 1),
        c8: round(row.audioSPerWallS.c8, 1),
      },
      cpu_s_per_audio_s: round(row.cpuSPerAudioS, 5),
      ratio_to_raw: row.ratioToRaw
        ? { ttfa_p50: round(row.ratioToRaw.ttfaP50, 3), cpu: round(row.ratioToRaw.cpu, 3) }
        : null,
    })),
    oneshot: oneShot.map((result) => ({
      concurrency: result.concurrency,
      requests: result.requests,
      latency_ms: { p50: round(result.latencyMs.p50), p95: round(result.latencyMs.p95) },
      requests_per_s: round(result.requestsPerS, 1),
      server_cpu_ms_per_request: round(result.serverCpuMsPerRequest, 3),
      raw_engine_wall_ms_p50: round(rawShortWallP50),
    })),
    streaming: streamingJson(streaming, rawCpu),
    targets,
  };

  const benchDir = import.meta.dirname;
  mkdirSync(path.join(benchDir, 'results'), { recursive: true });
  // A quick run never replaces the recorded full results.
  writeFileSync(
    path.join(benchDir, 'results', quick ? 'quick.json' : 'latest.json'),
    `${JSON.stringify(results, null, 2)}\n`,
  );

  const text = `${table(rows, oneShot, rawShortWallP50)}\n\n${streamingTable(streaming, rawCpu)}`;
  const section = [
    `Run on ${date.slice(0, 10)} with \`${results.command}\` on ${machine.cpus} × ${machine.cpu_model}, Node ${machine.node}, ${machine.espeak_ng}, ${machine.ffmpeg.split(' Copyright')[0]}.`,
    '',
    text,
    '',
    'Targets:',
    '',
    ...targetLines(targets),
  ].join('\n');
  process.stdout.write(`\n${section}\n`);

  if (!quick) {
    const readmePath = path.join(benchDir, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    const start = '<!-- results:start -->';
    const end = '<!-- results:end -->';
    const from = readme.indexOf(start);
    const to = readme.indexOf(end);
    if (from >= 0 && to > from) {
      writeFileSync(
        readmePath,
        `${readme.slice(0, from + start.length)}\n${section}\n${readme.slice(to)}`,
      );
    }
  }
}

await main();
