import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChunkingOptions,
  chunkText,
  type TextChunk,
} from '../../../../src/tts/providers/kokoro/chunker.ts';
import {
  KOKORO_SAMPLE_RATE_HZ,
  KokoroProvider,
  tokenize,
} from '../../../../src/tts/providers/kokoro/index.ts';
import { KOKORO_FRAME_SAMPLES } from '../../../../src/tts/providers/kokoro/inference-protocol.ts';
import {
  DEFAULT_SEAMS,
  SEAM_TAIL_MS,
  shapeChunk,
} from '../../../../src/tts/providers/kokoro/seams.ts';
import { installedKokoro, startKokoro } from './engine.ts';
import { PredictedWords } from './predicted-words.ts';

/*
 * Kokoro's audio cannot be byte-identical across chunkings: each model run's prosody
 * depends on its whole input (a short input is spoken slower, and its last word ends as
 * an utterance ends, whatever punctuation follows). So this file
 * checks byte identity where it holds (the same request twice; a one-chunk text against
 * one raw model run) and measures each seam of a chunked text against ONE model run of
 * the whole text, bounding the difference by what was measured here (2 cores, onnxruntime
 * 1.30 CPU, fp32 model; docs/decisions/synthesis.md, "Neural seams measured against one
 * model run").
 */

/** Four chunks under {@link CHUNKED}: the seams end between words, at a clause, at a sentence. */
const TEXT =
  'The little red train climbs slowly up the hill, stopping at every village. Tea is served at the top.';
const CHUNKS: TextChunk[] = [
  { text: 'The little red train', end: 'word' },
  { text: 'climbs slowly up the hill,', end: 'clause' },
  { text: 'stopping at every village.', end: 'sentence' },
  { text: 'Tea is served at the top.', end: 'sentence' },
];
/** The default first chunk, then no growth: short later chunks, so the text stays short. */
const CHUNKED: ChunkingOptions = {
  firstChunkWords: 4,
  firstClauseMaxWords: 6,
  growth: 1,
  minChunkChars: 20,
  maxChunkChars: 220,
};
/** The whole text in one model run: the reference. */
const WHOLE: ChunkingOptions = { ...CHUNKED, firstChunkWords: 1000, maxChunkChars: 1000 };
/** A text the default chunking keeps as one chunk. */
const SHORT = 'Tea is served at the top.';

const RATE = KOKORO_SAMPLE_RATE_HZ;
const FRAME_MS = (KOKORO_FRAME_SAMPLES / RATE) * 1000;
/** shapeChunk's silence threshold (0.01 of full scale) on 16-bit samples. */
const LOUD = DEFAULT_SEAMS.silenceThreshold * 32767;
const loud = (sample: number) => Math.abs(sample) > LOUD;
const ms = (samples: number) => (samples / RATE) * 1000;
const bytes = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

/** Tokens that separate IPA words: the space and the punctuation Kokoro reads. */
const SEPARATORS = new Set(tokenize(' ;:,.!?—…"()“”').slice(1, -1));

/** One synthesis: its PCM, where each chunk's audio ends, and the model runs behind it. */
interface Spoken {
  readonly samples: Int16Array;
  readonly chunkEnds: readonly number[];
  readonly runs: PredictedWords['runs'];
}

async function speak(
  provider: KokoroProvider,
  recorder: PredictedWords,
  text: string,
  voice: string,
): Promise<Spoken> {
  recorder.reset();
  const parts: Buffer[] = [];
  const chunkEnds: number[] = [];
  let length = 0;
  for await (const chunk of provider.synthesize(
    { text, providerVoiceId: voice },
    new AbortController().signal,
  )) {
    parts.push(chunk.data);
    length += chunk.data.length / 2;
    chunkEnds.push(length);
  }
  const pcm = Buffer.concat(parts);
  const samples = new Int16Array(pcm.length / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2);
  return { samples, chunkEnds, runs: [...recorder.runs] };
}

/** Silence around a seam of the chunked output: last loud sample before it to first after. */
function seamGapMs(samples: Int16Array, at: number): number {
  let last = at - 1;
  while (last >= 0 && !loud(samples[last]!)) last--;
  let first = at;
  while (first < samples.length && !loud(samples[first]!)) first++;
  return ms(first - last - 1);
}

/**
 * The model's own silence in one run between the word ending at token `next`'s separators
 * and the word starting at token `next`: the longest run of quiet samples that overlaps
 * the frames the model predicted for the separators, widened by 4 frames before and 2
 * after (the audio of this model runs up to a few frames ahead of its predicted durations:
 * the silence after "hill" starts 5 frames before the comma's frames).
 */
function runGapMs(spoken: Spoken, next: number): number {
  const { durations, trimmedSamples } = spoken.runs[0]!.result;
  const tokens = spoken.runs[0]!.tokens;
  let separator = next;
  while (separator > 1 && SEPARATORS.has(tokens[separator - 1]!)) separator--;
  const frameStart = (token: number) => durations.slice(0, token).reduce((a, b) => a + b, 0);
  const from = (frameStart(separator) - 4) * KOKORO_FRAME_SAMPLES - trimmedSamples;
  const to = (frameStart(next) + 2) * KOKORO_FRAME_SAMPLES - trimmedSamples;
  let longest = 0;
  let quietFrom = -1;
  for (let i = 0; i <= spoken.samples.length; i++) {
    const quiet = i < spoken.samples.length && !loud(spoken.samples[i]!);
    if (quiet && quietFrom < 0) quietFrom = i;
    if (!quiet && quietFrom >= 0) {
      if (i > from && quietFrom < to) longest = Math.max(longest, i - quietFrom);
      quietFrom = -1;
    }
  }
  return ms(longest);
}

/** Whole-run token where each chunk after the first starts (its pads and spaces counted). */
function chunkStartTokens(chunked: Spoken): number[] {
  const starts: number[] = [];
  let token = 1;
  for (const run of chunked.runs.slice(0, -1)) {
    token += run.tokens.length - 2 + 1; // the chunk's phonemes, then the space after it
    starts.push(token);
  }
  return starts;
}

/** Each seam's silence, chunked and in the one run, in ms. */
function seams(chunked: Spoken, whole: Spoken): { chunked: number; run: number }[] {
  return chunkStartTokens(chunked).map((token, i) => ({
    chunked: seamGapMs(chunked.samples, chunked.chunkEnds[i]!),
    run: runGapMs(whole, token),
  }));
}

/**
 * Measured here for {@link TEXT} (ms): each seam's silence in the chunked output and at
 * the same word boundary of one run of the whole text, and both outputs' lengths.
 */
const MEASURED = {
  af_heart: {
    word: { chunked: 105, run: 20.2 },
    clause: { chunked: 225, run: 221.4 },
    sentence: { chunked: 435.2, run: 469.8 },
    length: { chunked: 5658.3, run: 5617.9 },
  },
  bm_george: {
    word: { chunked: 105, run: 7.9 },
    clause: { chunked: 225, run: 251.5 },
    sentence: { chunked: 499.1, run: 428.1 },
    length: { chunked: 7805.4, run: 6072.8 },
  },
} as const;
type Voice = keyof typeof MEASURED;
const VOICES = Object.keys(MEASURED) as Voice[];

const recorder = new PredictedWords();
const kokoro = startKokoro({}, { chunking: CHUNKED, ...recorder.hooks });
const files = installedKokoro();
const wholeProvider = new KokoroProvider({
  pool: kokoro.pool,
  phonemizer: (lines, language, signal) => kokoro.native.phonemize(lines, language, signal),
  voicesDir: files.voicesDir,
  chunking: WHOLE,
  ...recorder.hooks,
});
/** Each voice's chunked output and one run of the whole text, spoken once for the file. */
const spoken = new Map<Voice, { chunked: Spoken; whole: Spoken }>();
beforeAll(async () => {
  await kokoro.pool.ready();
  for (const voice of VOICES) {
    const chunked = await speak(kokoro.provider, recorder, TEXT, voice);
    const whole = await speak(wholeProvider, recorder, TEXT, voice);
    spoken.set(voice, { chunked, whole });
  }
}, 300_000);
afterAll(() => kokoro.close());

describe('shapeChunk', () => {
  it('keeps at most maxTailMs after the last sound, even when keepUntil lies further', () => {
    // 10 ms of sound, then 500 ms of silence; keepUntil at its end.
    const sound = RATE / 100;
    const audio = new Float32Array(sound + RATE / 2).fill(0.5, 0, sound);
    const options = { ...DEFAULT_SEAMS, sampleRateHz: RATE };
    expect(shapeChunk(audio, options, audio.length).pcm.length).toBe(audio.length);
    const capped = shapeChunk(audio, { ...options, maxTailMs: 200 }, audio.length);
    expect(capped.start).toBe(0);
    expect(capped.pcm.length).toBe(sound + RATE / 5);
  });
});

describe('Kokoro output where it is byte-identical', () => {
  it('speaks the same text and voice twice with the same bytes', async () => {
    const first = spoken.get('af_heart')!.chunked;
    const second = await speak(kokoro.provider, recorder, TEXT, 'af_heart');
    expect(second.runs.length).toBe(CHUNKS.length);
    expect(second.samples.length).toBe(first.samples.length);
    expect(bytes(second.samples).equals(bytes(first.samples))).toBe(true);
  }, 120_000);

  it('gives a one-chunk text exactly the shaped audio of one raw model run', async () => {
    const short = await speak(kokoro.provider, recorder, SHORT, 'af_heart');
    expect(short.runs.length).toBe(1);
    const { tokens, result } = short.runs[0]!;
    // The session settings of the pool's worker, with its 2 threads (startKokoro).
    const session = await ort.InferenceSession.create(files.modelPath, {
      intraOpNumThreads: 2,
      interOpNumThreads: 1,
      executionMode: 'sequential',
    });
    try {
      const voice = await readFile(path.join(files.voicesDir, 'af_heart.bin'));
      const styles = new Float32Array(
        voice.buffer.slice(voice.byteOffset, voice.byteOffset + voice.byteLength),
      );
      const row = tokens.length - 2;
      const output = await session.run({
        tokens: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]),
        style: new ort.Tensor('float32', styles.slice(row * 256, (row + 1) * 256), [1, 256]),
        speed: new ort.Tensor('float32', Float32Array.of(1), [1]),
      });
      const raw = output.audio!.data as Float32Array;
      const shaped = shapeChunk(raw, {
        ...DEFAULT_SEAMS,
        tailMs: SEAM_TAIL_MS.end,
        sampleRateHz: RATE,
      });
      expect(result.rawSamples).toBe(raw.length);
      expect(result.trimmedSamples).toBe(shaped.start);
      expect(bytes(short.samples).equals(bytes(shaped.pcm))).toBe(true);
    } finally {
      await session.release();
    }
  }, 120_000);
});

describe.each(VOICES)('Kokoro seams of %s against one model run of the whole text', (voice) => {
  const measured = MEASURED[voice];
  /** A figure of this run is the one measured, within one model frame. */
  const near = (actual: number, expected: number, what: string) =>
    expect(Math.abs(actual - expected), `${what}: ${actual.toFixed(1)} ms`).toBeLessThanOrEqual(
      FRAME_MS,
    );

  it('compares the same phonemes: the runs of the chunks are the one run split at spaces', () => {
    expect(chunkText(TEXT, CHUNKED)).toEqual(CHUNKS);
    const { chunked, whole } = spoken.get(voice)!;
    expect(chunked.runs.length).toBe(CHUNKS.length);
    expect(whole.runs.length).toBe(1);
    const space = tokenize(' ')[1]!;
    const joined = chunked.runs.flatMap((run, i) => [
      ...(i === 0 ? [] : [space]),
      ...run.tokens.slice(1, -1),
    ]);
    expect(whole.runs[0]!.tokens).toEqual([0, ...joined, 0]);
  });

  it('parts words with the designed 105 ms where the one run runs them together', () => {
    const [word] = seams(spoken.get(voice)!.chunked, spoken.get(voice)!.whole);
    // 80 ms kept after the last sound of the chunk plus the next chunk's 25 ms lead.
    expect(Math.abs(word!.chunked - 105), `word seam ${word!.chunked} ms`).toBeLessThanOrEqual(1);
    near(word!.run, measured.word.run, 'the one run between the same words');
  });

  it('keeps the pause the model makes at a sentence end within 4 frames of the one run', () => {
    const [, , sentence] = seams(spoken.get(voice)!.chunked, spoken.get(voice)!.whole);
    expect(Math.abs(sentence!.chunked - sentence!.run)).toBeLessThanOrEqual(4 * FRAME_MS);
    near(sentence!.chunked, measured.sentence.chunked, 'sentence seam');
    near(sentence!.run, measured.sentence.run, 'the one run at the same full stop');
  });

  it('holds a clause seam to 225 ms, within 2 frames of the one run at the same comma', () => {
    const [, clause] = seams(spoken.get(voice)!.chunked, spoken.get(voice)!.whole);
    // The run ending at the comma made 443 and 478 ms of silence after it (the end of its
    // input); 200 ms of it is kept, then the next chunk's 25 ms lead.
    expect(
      Math.abs(clause!.chunked - 225),
      `clause seam ${clause!.chunked} ms`,
    ).toBeLessThanOrEqual(1);
    expect(Math.abs(clause!.chunked - clause!.run)).toBeLessThanOrEqual(2 * FRAME_MS);
    near(clause!.run, measured.clause.run, 'the one run at the same comma');
  });

  it('lasts as long as measured against the one run', () => {
    // af_heart: 40 ms longer, the seams' +54 ms less 14 ms of faster speech. bm_george:
    // 1733 ms (29%) longer, the seams' +142 ms and 1591 ms of slower speech: this voice
    // speaks each run of 4-6 words 22-41% slower than the same words inside one run.
    const { chunked, whole } = spoken.get(voice)!;
    const difference = ms(chunked.samples.length) - ms(whole.samples.length);
    near(difference, measured.length.chunked - measured.length.run, 'chunked minus one run');
    near(ms(whole.samples.length), measured.length.run, 'the one run');
  });
});
