/**
 * Embedded speech to text: word error rate and latency of each Whisper size, beam and
 * shortest encoder window on this machine, through the real sidecar (EmbeddedSttProvider).
 * Needs scripts/install-whisper.sh. Run: `node --import tsx bench/stt.ts [--runs N]`.
 *
 * Audio: the sentences of test/helpers/stt-sentences.ts spoken by espeak-ng (en-us) and,
 * when scripts/install-kokoro.sh has run, by six English neural voices (Kokoro), resampled
 * to 16 kHz. Latency: the first sentence (about 2.2 s of speech), `runs` times after the
 * accuracy pass warmed the engine; a 1 s prefix of it shows the cost an interim
 * re-transcription would have; a 10 s utterance gives the real-time factor.
 * Writes bench/results/stt.json and prints a Markdown table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { defaultSidecarPython, defaultWhisperModelDir } from '../src/stt/embedded/paths.ts';
import { EmbeddedSttProvider } from '../src/stt/embedded/provider.ts';
import { STT_SAMPLE_RATE_HZ } from '../src/stt/provider.ts';
import { speechPcm } from '../test/fakes/speech-audio.ts';
import { STT_SENTENCES } from '../test/helpers/stt-sentences.ts';
import { normalizeWords, wordEditDistance, wordErrorRate } from '../test/helpers/wer.ts';
import { type KokoroSpeech, startKokoroSpeech } from './lib/kokoro-speech.ts';
import { quantile, round } from './lib/stats.ts';

const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag >= 0 ? Number(process.argv[runsFlag + 1]) : 7;
const THREADS = Number(process.env.WHISPER_THREADS ?? 0);
/** `window`: the shortest encoder window in seconds (30: Whisper's full window always). */
const CONFIGS = [
  { size: 'tiny.en', beam: 1, window: 30 },
  { size: 'tiny.en', beam: 1, window: 10 },
  { size: 'tiny.en', beam: 5, window: 30 },
  { size: 'base', beam: 1, window: 30 },
  { size: 'base', beam: 1, window: 10 },
  { size: 'base', beam: 5, window: 30 },
] as const;
const NEURAL_VOICES = ['af_heart', 'am_michael', 'bf_emma', 'bm_george', 'af_nicole', 'am_puck'];

interface ConfigResult {
  model: string;
  beam: number;
  minWindowS: number;
  loadMs: number;
  meanWer: number;
  exactSentences: number;
  worst: { reference: string; heard: string; wer: number };
  /** Word errors / words over the neural voices' readings; null without Kokoro. */
  neural: { errors: number; words: number; wer: number; fullWindowRetries: number } | null;
  latencyP50Ms: number;
  latencyMaxMs: number;
  prefix1sP50Ms: number;
  rtf10s: number;
}

function samples(pcm: Buffer): Int16Array {
  return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2).slice();
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
}

/** The sentences read by each English neural voice, at 16 kHz; empty without Kokoro. */
async function neuralReadings(): Promise<Array<{ sentence: string; audio: Int16Array }>> {
  let speech: KokoroSpeech;
  try {
    speech = startKokoroSpeech();
  } catch {
    process.stderr.write('Kokoro is not installed: no neural readings\n');
    return [];
  }
  const readings: Array<{ sentence: string; audio: Int16Array }> = [];
  try {
    for (const style of NEURAL_VOICES) {
      for (const sentence of STT_SENTENCES) {
        readings.push({ sentence, audio: await speech.speak(style, sentence) });
      }
    }
  } finally {
    await speech.close();
  }
  return readings;
}

async function measure(
  size: string,
  beam: number,
  minWindowS: number,
  neural: ReadonlyArray<{ sentence: string; audio: Int16Array }>,
): Promise<ConfigResult> {
  let fullWindowRetries = 0;
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        if (line.includes('again in the full window')) fullWindowRetries++;
      },
    },
  );
  const provider = new EmbeddedSttProvider({
    pythonPath: defaultSidecarPython(),
    modelDir: defaultWhisperModelDir(size),
    beamSize: beam,
    threads: THREADS,
    minWindowS,
    maxQueue: 4,
    requestTimeoutMs: 120_000,
    startTimeoutMs: 120_000,
    logger,
  });
  const signal = new AbortController().signal;
  try {
    const [, loadMs] = await timed(() => provider.warmUp());
    const wers: Array<{ reference: string; heard: string; wer: number }> = [];
    for (const sentence of STT_SENTENCES) {
      const audio = samples(await speechPcm(sentence, STT_SAMPLE_RATE_HZ));
      const result = await provider.transcribe(audio, { language: 'en' }, signal);
      wers.push({
        reference: sentence,
        heard: result.text,
        wer: wordErrorRate(sentence, result.text),
      });
    }
    let neuralErrors = 0;
    let neuralWords = 0;
    for (const { sentence, audio } of neural) {
      const result = await provider.transcribe(audio, { language: 'en' }, signal);
      const reference = normalizeWords(sentence);
      neuralErrors += wordEditDistance(reference, normalizeWords(result.text));
      neuralWords += reference.length;
    }
    const first = samples(await speechPcm(STT_SENTENCES[0] ?? '', STT_SAMPLE_RATE_HZ));
    const latencies: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      latencies.push(
        (await timed(() => provider.transcribe(first, { language: 'en' }, signal)))[1],
      );
    }
    const prefix = first.slice(0, STT_SAMPLE_RATE_HZ);
    const prefixLatencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      prefixLatencies.push(
        (await timed(() => provider.transcribe(prefix, { language: 'en' }, signal)))[1],
      );
    }
    const long = samples(
      await speechPcm(STT_SENTENCES.slice(1, 5).join(' '), STT_SAMPLE_RATE_HZ),
    ).slice(0, 10 * STT_SAMPLE_RATE_HZ);
    const [, longMs] = await timed(() => provider.transcribe(long, { language: 'en' }, signal));
    const worst = wers.reduce((a, b) => (b.wer > a.wer ? b : a));
    return {
      model: size,
      beam,
      minWindowS,
      loadMs: round(loadMs, 0),
      meanWer: round(wers.reduce((sum, w) => sum + w.wer, 0) / wers.length, 3),
      exactSentences: wers.filter((w) => w.wer === 0).length,
      worst: { ...worst, wer: round(worst.wer, 3) },
      neural:
        neural.length === 0
          ? null
          : {
              errors: neuralErrors,
              words: neuralWords,
              wer: round(neuralErrors / neuralWords, 4),
              fullWindowRetries,
            },
      latencyP50Ms: round(quantile(latencies, 0.5), 0),
      latencyMaxMs: round(Math.max(...latencies), 0),
      prefix1sP50Ms: round(quantile(prefixLatencies, 0.5), 0),
      rtf10s: round(longMs / (long.length / STT_SAMPLE_RATE_HZ) / 1000, 3),
    };
  } finally {
    await provider.close();
  }
}

process.stderr.write('synthesizing the neural readings\n');
const neural = await neuralReadings();
const loadBefore = loadavg();
const results: ConfigResult[] = [];
for (const config of CONFIGS) {
  process.stderr.write(`measuring ${config.size} beam ${config.beam} window ${config.window}\n`);
  results.push(await measure(config.size, config.beam, config.window, neural));
}
const loadAfter = loadavg();
const report = {
  date: new Date().toISOString(),
  cpus: cpus().length,
  threads: THREADS,
  loadavg1mBefore: round(loadBefore[0] ?? 0, 2),
  loadavg1mAfter: round(loadAfter[0] ?? 0, 2),
  sentences: STT_SENTENCES.length,
  neuralVoices: neural.length === 0 ? [] : NEURAL_VOICES,
  latencyUtteranceMs: round(
    ((await speechPcm(STT_SENTENCES[0] ?? '', STT_SAMPLE_RATE_HZ)).byteLength /
      2 /
      STT_SAMPLE_RATE_HZ) *
      1000,
    0,
  ),
  results,
};
const out = path.join(import.meta.dirname, 'results', 'stt.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

console.log(
  `| model | beam | min window | espeak-ng: mean WER (${report.sentences} sentences) | exact | neural voices: word errors (retries) | latency p50 / max (${report.latencyUtteranceMs} ms utterance) | 1 s prefix p50 | RTF (10 s) | load |`,
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  const neuralCell = r.neural
    ? `${r.neural.errors}/${r.neural.words} = ${r.neural.wer} (${r.neural.fullWindowRetries})`
    : 'n/a';
  console.log(
    `| ${r.model} | ${r.beam} | ${r.minWindowS} s | ${r.meanWer} | ${r.exactSentences}/${report.sentences} | ${neuralCell} | ${r.latencyP50Ms} / ${r.latencyMaxMs} ms | ${r.prefix1sP50Ms} ms | ${r.rtf10s} | ${r.loadMs} ms |`,
  );
}
console.log(
  `load average (1 min) before ${report.loadavg1mBefore}, after ${report.loadavg1mAfter}`,
);
for (const r of results) {
  console.log(`${r.model} beam ${r.beam} window ${r.minWindowS} worst: ${JSON.stringify(r.worst)}`);
}
