/**
 * Neural voices (Kokoro-82M) beside the raw model, in one run on the same text:
 * `node --import tsx bench/neural.ts [--quick]`. The raw rows run the model directly on
 * the same tokens with the worker's session options (the physical limit); the pipeline
 * rows run KokoroProvider (espeak-ng phonemes, chunking, worker threads, seam shaping)
 * producing pcm_24000. The first-clause row times, for the bench sentence and each of the
 * voice-agent replies, the raw model on the first chunk's tokens alone against the
 * pipeline's first audio for the whole reply. Writes bench/results/neural[-quick].json.
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

/** A session on the installed model with the inference worker's options. */
function rawSession(threads: number): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(files.modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
}

/** The model's inputs for `text` as the provider builds them (pads around the tokens). */
async function feedsFor(text: string) {
  const ipa = await phonemizeChunk(text, 'en-us', phonemizer, new AbortController().signal);
  const tokens = tokenize(ipa);
  const row = tokens.length - 2;
  return {
    tokens: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]),
    style: new ort.Tensor('float32', styles.slice(row * 256, row * 256 + 256), [1, 256]),
    speed: new ort.Tensor('float32', Float32Array.of(1), [1]),
  };
}

/** The replies of the first-clause row: the bench sentence, then a voice agent's turns. */
const REPLIES = [SHORT_TEXT, ...UTTERANCES];

/** The raw model on the first chunk of each reply alone: its compute, per reply and overall. */
async function rawFirstChunks(threads: number) {
  const session = await rawSession(threads);
  const rows = [];
  const all: number[] = [];
  for (const reply of REPLIES) {
    const first = chunkText(normalizeText(reply))[0]!.text;
    const feeds = await feedsFor(first);
    const warm = await session.run(feeds);
    const walls: number[] = [];
    const cpu0 = cpuS();
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await session.run(feeds);
      walls.push(performance.now() - t0);
    }
    // CPU of one run: on two idle cores its wall time is at least half of it.
    const cpuMsPerRun = round(((cpuS() - cpu0) / runs) * 1000);
    all.push(...walls);
    const audioMs = ((warm.audio!.data as Float32Array).length / KOKORO_SAMPLE_RATE_HZ) * 1000;
    // Frames of 25 ms the model gave the leading pad: silence computed before the first word.
    const leadingPadMs = Number((warm.durations!.data as Float32Array)[0]) * 25;
    rows.push({
      first,
      rawP50Ms: round(quantile(walls, 0.5)),
      rawAudioMs: round(audioMs, 0),
      leadingPadMs,
      cpuMsPerRun,
    });
  }
  // The whole replies, one run each: the raw model's CPU per second of their audio.
  let audioS = 0;
  const cpu0 = cpuS();
  for (const reply of REPLIES) {
    const feeds = await feedsFor(normalizeText(reply));
    for (let i = 0; i < runs; i++) {
      const out = await session.run(feeds);
      audioS += (out.audio!.data as Float32Array).length / KOKORO_SAMPLE_RATE_HZ;
    }
  }
  const cpuSPerAudioS = round((cpuS() - cpu0) / audioS, 3);
  await session.release();
  return {
    rows,
    rawP50Ms: round(quantile(all, 0.5)),
    rawP95Ms: round(quantile(all, 0.95)),
    cpuSPerAudioS,
  };
}

/** The raw model on the whole short sentence: compute, audio, CPU, per thread count. */
async function raw(threads: number) {
  const session = await rawSession(threads);
  const feeds = await feedsFor(normalizeText(SHORT_TEXT));
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

/** The provider on the short sentence (and, with `replies`, the first audio of each reply). */
async function pipeline(threads: number, concurrency: number, replies: boolean) {
  const pool = new InferencePool({
    modelPath: files.modelPath,
    modelSha256: files.modelSha256,
    sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
    threadsPerInference: threads,
    concurrentInferences: concurrency,
    maxWaitMs: 600_000,
  });
  await pool.ready();
  let computedSamples = 0;
  let runsCount = 0;
  const provider = new KokoroProvider({
    pool,
    phonemizer,
    voicesDir: files.voicesDir,
    onRun: ({ result }) => {
      computedSamples += result.rawSamples;
      runsCount++;
    },
  });
  const speak = async (text: string) => {
    const t0 = performance.now();
    let first = 0;
    let bytes = 0;
    // Playback started at the first audio: where it stands, and how long it waited for
    // chunks that arrived after the audio before them had played out.
    let playheadMs = 0;
    let stallMs = 0;
    for await (const chunk of provider.synthesize(
      { text, providerVoiceId: voice },
      new AbortController().signal,
    )) {
      if (chunk.data.length === 0) continue;
      const at = performance.now() - t0;
      if (!first) first = playheadMs = at;
      if (at > playheadMs) {
        stallMs += at - playheadMs;
        playheadMs = at;
      }
      playheadMs += (chunk.data.length / 2 / KOKORO_SAMPLE_RATE_HZ) * 1000;
      bytes += chunk.data.length;
    }
    return {
      firstMs: first,
      stallMs,
      wallMs: performance.now() - t0,
      audioS: bytes / 2 / KOKORO_SAMPLE_RATE_HZ,
    };
  };
  await speak(SHORT_TEXT);
  const replyFirsts: number[] = [];
  const replyStalls: number[] = [];
  const replyRows = [];
  let replyAudioS = 0;
  const replyCpu0 = cpuS();
  computedSamples = 0;
  runsCount = 0;
  for (const reply of replies ? REPLIES : []) {
    const walls: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await speak(reply);
      walls.push(r.firstMs);
      replyStalls.push(r.stallMs);
      replyAudioS += r.audioS;
    }
    replyFirsts.push(...walls);
    replyRows.push(round(quantile(walls, 0.5)));
  }
  const replyCpu = {
    cpuSPerAudioS: round((cpuS() - replyCpu0) / replyAudioS, 3),
    runsPerReply: round(runsCount / (REPLIES.length * runs), 2),
    computedPerDeliveredAudio: round(computedSamples / KOKORO_SAMPLE_RATE_HZ / replyAudioS, 3),
  };
  const firsts: number[] = [];
  let audioS = 0;
  let wallMs = 0;
  computedSamples = 0;
  runsCount = 0;
  const cpu0 = cpuS();
  for (let i = 0; i < runs; i++) {
    const r = await speak(SHORT_TEXT);
    firsts.push(r.firstMs);
    audioS += r.audioS;
    wallMs += r.wallMs;
  }
  const cpu = cpuS() - cpu0;
  const computedS = computedSamples / KOKORO_SAMPLE_RATE_HZ;
  const runsPerSentence = round(runsCount / runs, 2);
  // Realtime streams: N long texts at once; sustained when every stream's audio keeps
  // ahead of playback (audio s / wall s >= 1 after its first audio).
  let sustained = 0;
  const longText = LONG_TEXT.slice(0, quick ? 400 : 1000);
  for (let n = 1; n <= 4; n++) {
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
    replyFirstAudioMs: {
      p50: round(quantile(replyFirsts, 0.5)),
      p95: round(quantile(replyFirsts, 0.95)),
      perReplyP50: replyRows,
    },
    replyCpu,
    replyStallMs: {
      p50: round(quantile(replyStalls, 0.5)),
      max: round(Math.max(0, ...replyStalls)),
    },
    rtf: round(wallMs / 1000 / audioS, 3),
    cpuSPerAudioS: round(cpu / audioS, 3),
    runsPerSentence,
    computedPerDeliveredAudio: round(computedS / audioS, 3),
    realtimeStreams: sustained,
    rssMb,
  };
}

const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const rawFirst = await rawFirstChunks(2);
const rawRows = [await raw(1), await raw(2)];
const pipelineRows = [await pipeline(2, 1, true), await pipeline(1, 2, false)];
const loadAtEnd = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
await native.close();
const results = {
  date: new Date().toISOString(),
  command: `node --import tsx bench/neural.ts${quick ? ' --quick' : ''}`,
  loadAverageAtStart: load,
  loadAverageAtEnd: loadAtEnd,
  chunks: chunkText(normalizeText(SHORT_TEXT)).map((c) => c.text),
  firstClause: {
    id: 'first chunk of each reply, 2 threads: raw model alone / pipeline first audio',
    replies: rawFirst.rows.map((row, i) => ({
      ...row,
      pipelineFirstAudioP50Ms: pipelineRows[0]!.replyFirstAudioMs.perReplyP50[i],
    })),
    rawModelMs: { p50: rawFirst.rawP50Ms, p95: rawFirst.rawP95Ms },
    pipelineFirstAudioMs: {
      p50: pipelineRows[0]!.replyFirstAudioMs.p50,
      p95: pipelineRows[0]!.replyFirstAudioMs.p95,
    },
    playbackStallMs: pipelineRows[0]!.replyStallMs,
    rawCpuSPerAudioS: rawFirst.cpuSPerAudioS,
    pipeline: pipelineRows[0]!.replyCpu,
    ratioCpuToRaw: round(pipelineRows[0]!.replyCpu.cpuSPerAudioS / rawFirst.cpuSPerAudioS, 2),
  },
  raw: rawRows,
  pipeline: pipelineRows,
  ratioCpuToRaw2Threads: round(pipelineRows[0]!.cpuSPerAudioS / rawRows[1]!.cpuSPerAudioS, 2),
};
mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(
  path.join(import.meta.dirname, 'results', quick ? 'neural-quick.json' : 'neural.json'),
  `${JSON.stringify(results, null, 2)}\n`,
);
console.log(JSON.stringify(results, null, 2));
