/**
 * Neural voices (Kokoro-82M) beside the raw model, in one run on the same text:
 * `node --import tsx bench/neural.ts [--quick] [--two-threads]`. The raw rows run the same ONNX session
 * directly on the same tokens (the physical limit); the pipeline rows run KokoroProvider
 * (espeak-ng phonemes, chunking, worker threads, seam shaping) producing pcm_24000.
 * Writes bench/results/neural[-quick].json and prints a Markdown table.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import {
  chunkText,
  defaultKokoroDir,
  InferencePool,
  KOKORO_SAMPLE_RATE_HZ,
  KokoroProvider,
  locateKokoroFiles,
  normalizeText,
  phonemizeChunk,
  tokenize,
} from '../src/tts/providers/kokoro/index.ts';
import { NativeProvider } from '../src/tts/providers/native/index.ts';
import { quantile, round } from './lib/stats.ts';
import { LONG_TEXT, SHORT_TEXT, UTTERANCES } from './lib/texts.ts';

const quick = process.argv.includes('--quick');
const runs = quick ? 5 : 20;
const files = locateKokoroFiles(process.env.KOKORO_DIR ?? defaultKokoroDir());
const native = new NativeProvider();
const phonemizer = (lines: readonly string[], language: string, signal: AbortSignal) =>
  native.phonemize(lines, language, signal);
const voice = 'af_heart';
const styles = new Float32Array(
  readFileSync(path.join(files.voicesDir, `${voice}.bin`)).buffer.slice(0),
);
const cpuS = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

/** The installed model as published (with its durations output), no pipeline around it. */
function rawSession(threads: number) {
  return ort.InferenceSession.create(files.modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  });
}

/** The model's inputs for `text` spoken as one run (af_heart, speed 1). */
async function feedsFor(text: string) {
  const ipa = await phonemizeChunk(
    normalizeText(text),
    'en-us',
    phonemizer,
    new AbortController().signal,
  );
  const tokens = tokenize(ipa);
  const row = tokens.length - 2;
  return {
    tokens: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]),
    style: new ort.Tensor('float32', styles.slice(row * 256, row * 256 + 256), [1, 256]),
    speed: new ort.Tensor('float32', Float32Array.of(1), [1]),
  };
}

/** The first chunk of each agent reply (the first clause, or its first few words). */
const FIRST_CLAUSES = UTTERANCES.map((reply) => chunkText(normalizeText(reply))[0]!.text);

/** Starts a pipeline: the provider on its own pool of `concurrency` x `threads`. */
async function startPipeline(threads: number, concurrency: number) {
  const pool = new InferencePool({
    modelPath: files.modelPath,
    modelSha256: files.modelSha256,
    sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
    threadsPerInference: threads,
    concurrentInferences: concurrency,
    maxWaitMs: 600_000,
  });
  await pool.ready();
  const provider = new KokoroProvider({ pool, phonemizer, voicesDir: files.voicesDir });
  /**
   * Speaks `text`; `stallMs` is how long playback started at the first audio would wait
   * for later chunks in all (0 when every chunk arrives before the audio before it ends).
   */
  const speak = async (text: string) => {
    const t0 = performance.now();
    let first = 0;
    let bytes = 0;
    let stallMs = 0;
    for await (const chunk of provider.synthesize(
      { text, providerVoiceId: voice },
      new AbortController().signal,
    )) {
      const now = performance.now() - t0;
      if (!first) first = now;
      const due = first + stallMs + (bytes / 2 / KOKORO_SAMPLE_RATE_HZ) * 1000;
      stallMs += Math.max(0, now - due);
      bytes += chunk.data.length;
    }
    return {
      firstMs: first,
      wallMs: performance.now() - t0,
      audioS: bytes / 2 / KOKORO_SAMPLE_RATE_HZ,
      stallMs,
    };
  };
  return { pool, speak };
}

/**
 * First audio of the first clause of each agent reply, the whole reply spoken, beside
 * the raw model run on the same tokens (that clause alone, one run) in the same process.
 */
async function firstClause(threads: number) {
  const session = await rawSession(threads);
  const rawMs: number[] = [];
  for (const clause of FIRST_CLAUSES) {
    const feeds = await feedsFor(clause);
    await session.run(feeds);
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await session.run(feeds);
      rawMs.push(performance.now() - t0);
    }
  }
  await session.release();
  const { pool, speak } = await startPipeline(threads, 1);
  await speak(UTTERANCES[0]!);
  const firsts: number[] = [];
  const stalls: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const reply of UTTERANCES) {
      const r = await speak(reply);
      firsts.push(r.firstMs);
      stalls.push(r.stallMs);
    }
  }
  await pool.close();
  return {
    id: `first clause of a reply, ${threads} thread(s)`,
    clauses: FIRST_CLAUSES,
    rawModelMs: { p50: round(quantile(rawMs, 0.5)), p95: round(quantile(rawMs, 0.95)) },
    firstAudioMs: { p50: round(quantile(firsts, 0.5)), p95: round(quantile(firsts, 0.95)) },
    stallMs: { p50: round(quantile(stalls, 0.5)), max: round(Math.max(...stalls)) },
  };
}

/** The raw model on the whole short sentence: compute, audio, CPU, per thread count. */
async function raw(threads: number) {
  const session = await rawSession(threads);
  const feeds = await feedsFor(SHORT_TEXT);
  await session.run(feeds);
  const walls: number[] = [];
  let audioS = 0;
  const cpu0 = cpuS();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const out = await session.run(feeds);
    walls.push(performance.now() - t0);
    audioS += (out.audio!.data as Float32Array).length / KOKORO_SAMPLE_RATE_HZ;
  }
  const cpu = cpuS() - cpu0;
  await session.release();
  const wallS = walls.reduce((a, b) => a + b, 0) / 1000;
  return {
    id: `raw model, ${threads} thread(s)`,
    computeP50Ms: round(quantile(walls, 0.5)),
    rtf: round(wallS / audioS, 3),
    cpuSPerAudioS: round(cpu / audioS, 3),
  };
}

async function pipeline(threads: number, concurrency: number, streams = true) {
  const { pool, speak } = await startPipeline(threads, concurrency);
  await speak(SHORT_TEXT);
  const firsts: number[] = [];
  let audioS = 0;
  let wallMs = 0;
  const cpu0 = cpuS();
  for (let i = 0; i < runs; i++) {
    const r = await speak(SHORT_TEXT);
    firsts.push(r.firstMs);
    audioS += r.audioS;
    wallMs += r.wallMs;
  }
  const cpu = cpuS() - cpu0;
  // Realtime streams: N long texts at once; sustained when every stream's audio keeps
  // ahead of playback (audio s / wall s >= 1 after its first audio).
  let sustained = 0;
  const longText = LONG_TEXT.slice(0, quick ? 400 : 1000);
  for (let n = 1; streams && n <= 4; n++) {
    const results = await Promise.all(Array.from({ length: n }, () => speak(longText)));
    const ok = results.every((r) => r.audioS / ((r.wallMs - r.firstMs) / 1000) >= 1);
    if (!ok) break;
    sustained = n;
  }
  const rssMb = round(process.memoryUsage().rss / 1e6, 0);
  await pool.close();
  return {
    id: `pipeline pcm_24000, ${concurrency} x ${threads} thread(s)`,
    firstAudioMs: { p50: round(quantile(firsts, 0.5)), p95: round(quantile(firsts, 0.95)) },
    rtf: round(wallMs / 1000 / audioS, 3),
    cpuSPerAudioS: round(cpu / audioS, 3),
    audioSPerRun: round(audioS / runs, 3),
    realtimeStreams: sustained,
    rssMb,
  };
}

const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
// `--two-threads` runs the first-clause row and the two-thread rows without the realtime
// streams (a few minutes on two cores).
const only = process.argv.includes('--two-threads');
const firstClauseRow = await firstClause(2);
const rawRows = only ? [await raw(2)] : [await raw(1), await raw(2)];
const pipelineRows = only
  ? [await pipeline(2, 1, false)]
  : [await pipeline(2, 1), await pipeline(1, 2)];
await native.close();
const results = {
  date: new Date().toISOString(),
  command: `node --import tsx bench/neural.ts${quick ? ' --quick' : ''}${only ? ' --two-threads' : ''}`,
  loadAverageAtStart: load,
  loadAverageAtEnd: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  chunks: chunkText(normalizeText(SHORT_TEXT)).map((c) => c.text),
  firstClause: firstClauseRow,
  raw: rawRows,
  pipeline: pipelineRows,
  ratioCpuToRaw2Threads: round(pipelineRows[0]!.cpuSPerAudioS / rawRows.at(-1)!.cpuSPerAudioS, 2),
};
const name = `neural${only ? '-two-threads' : ''}${quick ? '-quick' : ''}.json`;
mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(
  path.join(import.meta.dirname, 'results', name),
  `${JSON.stringify(results, null, 2)}\n`,
);
console.log(JSON.stringify(results, null, 2));
