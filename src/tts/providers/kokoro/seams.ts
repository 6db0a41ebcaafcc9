/** Where a chunk of model audio is cut and how its edges are shaped. */
export interface SeamOptions {
  readonly sampleRateHz: number;
  /** Samples quieter than this (full scale 1) count as silence at the edges. */
  readonly silenceThreshold: number;
  /** Audio kept before the first loud sample (the onset of a consonant is quiet). */
  readonly leadMs: number;
  /** Audio kept after the last loud sample (release of the last phoneme). */
  readonly tailMs: number;
  /** Raised-cosine fade at both ends, so a cut never lands on a non-zero sample. */
  readonly fadeMs: number;
  /** Most audio kept after the last loud sample, `keepUntil` included. Default: no limit. */
  readonly maxTailMs?: number;
}

/**
 * How a chunk's audio ends. `pause`: at the end of a sentence with more text after it,
 * kept up to the trailing pad (the model's own pause there, within 75 ms of the one it
 * makes at the same full stop inside one run). `clause`: at a comma, semicolon, colon or
 * dash with more text after it, kept up to the trailing pad but at most 200 ms after its
 * last sound: a run pauses at the end of its input as at the end of an utterance (up to
 * 630 ms of silence after a comma), where one run over the whole text pauses 0-510 ms at
 * a comma, 221 ms at the median; with the next chunk's 25 ms lead the gap is at most
 * 225 ms. `word`: between words, cut 80 ms after its last sound (with the next chunk's
 * 25 ms lead, the 105 ms gap between words the pipeline has always had, now the model's
 * own silence). `end`: the last chunk of the text, cut 60 ms after its last
 * sound. Measured in docs/decisions/synthesis.md ("Neural seams measured against one
 * model run").
 */
export type SeamEnd = 'pause' | 'clause' | 'word' | 'end';

/** Audio kept after the last sound of a chunk, by how it ends (see {@link SeamEnd}). */
export const SEAM_TAIL_MS: Readonly<Record<SeamEnd, number>> = {
  pause: 60,
  clause: 60,
  word: 80,
  end: 60,
};

/** Most audio kept after the last sound of a chunk ending at a clause (see {@link SeamEnd}). */
export const CLAUSE_MAX_TAIL_MS = 200;

export const DEFAULT_SEAMS: Omit<SeamOptions, 'sampleRateHz'> = {
  silenceThreshold: 0.01,
  leadMs: 25,
  tailMs: 60,
  fadeMs: 6,
};

/** One chunk's shaped audio and where in the model's output it was cut. */
export interface ShapedChunk {
  readonly pcm: Int16Array;
  /** Model sample of `pcm[0]`: the model's sample `n` is `pcm[n - start]`. */
  readonly start: number;
}

/**
 * Model output of one chunk as 16-bit PCM ready to be joined to its neighbours, with
 * nothing placed between them. The silence the model makes for the leading pad (300-500
 * ms before every input) is cut to `leadMs` before the first sound. The end is kept
 * `tailMs` past the last sound, and at least up to `keepUntil` when given: the start of
 * the trailing pad of a chunk ending at punctuation, so the pause the model made for that
 * punctuation is the pause before the next chunk; never more than `maxTailMs` past the
 * last sound when given. Both ends fade
 * so the join has no click. All-silent audio gives an empty buffer.
 */
export function shapeChunk(audio: Float32Array, options: SeamOptions, keepUntil = 0): ShapedChunk {
  let first = 0;
  while (first < audio.length && Math.abs(audio[first] ?? 0) <= options.silenceThreshold) first++;
  if (first === audio.length) return { pcm: new Int16Array(0), start: 0 };
  let last = audio.length - 1;
  while (last > first && Math.abs(audio[last] ?? 0) <= options.silenceThreshold) last--;
  const perMs = options.sampleRateHz / 1000;
  const start = Math.max(0, first - Math.round(options.leadMs * perMs));
  const end = Math.min(
    audio.length,
    Math.max(keepUntil, last + 1 + Math.round(options.tailMs * perMs)),
    last + 1 + Math.round((options.maxTailMs ?? Number.POSITIVE_INFINITY) * perMs),
  );
  const length = end - start;
  const fade = Math.min(Math.round(options.fadeMs * perMs), Math.floor(length / 2));
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    let gain = 1;
    if (i < fade) gain = 0.5 - 0.5 * Math.cos((Math.PI * i) / fade);
    else if (i >= length - fade) gain = 0.5 - 0.5 * Math.cos((Math.PI * (length - 1 - i)) / fade);
    const sample = Math.max(-1, Math.min(1, (audio[start + i] ?? 0) * gain));
    out[i] = Math.round(sample * 32767);
  }
  return { pcm: out, start };
}
