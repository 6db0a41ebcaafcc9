import { type TextTiming, wordsOf } from '../alignment.ts';
import type { TextChunk } from './chunker.ts';
import { KOKORO_FRAME_SAMPLES } from './inference-protocol.ts';
import { spokenUnits, type TokenGroup } from './word-tokens.ts';

/** When one unit of a chunk is spoken, and which token group of its chunk it belongs to. */
export interface UnitSpan {
  /** Token group, unique across the request (chunk and group within it). */
  readonly group: string;
  readonly startS: number;
  readonly endS: number;
}

/** Words of the request's text and the units (normalised words) they were spoken as. */
interface WordGroup {
  readonly textStart: number;
  readonly textEnd: number;
  /** Global unit indices, end exclusive; empty when the words were not spoken. */
  readonly unitStart: number;
  readonly unitEnd: number;
}

/** Compares words across normalisation: case, quotes and other marks aside. */
function key(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** How far ahead a run of words changed by normalisation is looked for on either side. */
const RESYNC_WINDOW = 12;

/**
 * Pairs the words of the original text with the units of its normalised form (indices,
 * end exclusive): equal words pair; where they differ, the nearest place where both agree
 * again ends a run, and a run pairs one to one when both sides have as many words
 * (`Mr.` and `Mister`), else as a whole (`1990` and `19 90`). With no agreement in sight
 * the next word and unit pair.
 */
function pairWords(original: string[], units: string[]): [number, number, number, number][] {
  const pairs: [number, number, number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < original.length && j < units.length) {
    if (original[i] === units[j]) {
      pairs.push([i, i + 1, j, j + 1]);
      i++;
      j++;
      continue;
    }
    const [a, b] = resync(original, units, i, j);
    pairs.push(...pairRun(original.slice(i, i + a), units.slice(j, j + b), i, j));
    i += a;
    j += b;
  }
  if (i < original.length) pairs.push([i, original.length, j, j]);
  return pairs;
}

/**
 * Pairs a run of words with the run of units normalisation made of them: a word whose
 * units spell it (`1990` as `19 90`) takes them; the rest pairs one to one when both
 * sides have as many, else as a whole.
 */
function pairRun(
  words: string[],
  units: string[],
  i: number,
  j: number,
): [number, number, number, number][] {
  const pairs: [number, number, number, number][] = [];
  let w = 0;
  let u = 0;
  while (w < words.length && u < units.length) {
    let spelled = '';
    let end = u;
    while (end < units.length && spelled.length < words[w]!.length) spelled += units[end++];
    if (spelled !== words[w] || spelled === '') break;
    pairs.push([i + w, i + w + 1, j + u, j + end]);
    w++;
    u = end;
  }
  const restWords = words.length - w;
  const restUnits = units.length - u;
  if (restWords === restUnits) {
    for (let k = 0; k < restWords; k++) {
      pairs.push([i + w + k, i + w + k + 1, j + u + k, j + u + k + 1]);
    }
  } else if (restWords > 0) {
    pairs.push([i + w, i + words.length, j + u, j + units.length]);
  }
  return pairs;
}

/** Words and units to skip from (i, j) to the nearest place where both agree again. */
function resync(original: string[], units: string[], i: number, j: number): [number, number] {
  for (let distance = 1; distance <= 2 * RESYNC_WINDOW; distance++) {
    for (
      let a = Math.max(0, distance - RESYNC_WINDOW);
      a <= Math.min(distance, RESYNC_WINDOW);
      a++
    ) {
      const b = distance - a;
      const word = original[i + a];
      if (word !== undefined && word === units[j + b]) return [a, b];
    }
  }
  // Nothing agrees again nearby (or the rest differs): the rest pairs as a whole when
  // short, else one word for one unit.
  const left = original.length - i;
  const right = units.length - j;
  return left <= RESYNC_WINDOW && right <= RESYNC_WINDOW ? [left, right] : [1, 1];
}

/**
 * Word timings of one Kokoro request, from the time span of each unit the model spoke.
 * The request's words (as {@link wordsOf} finds them) are paired with the units of the
 * normalised chunks; a word is timed from the start of its first unit to the end of its
 * last; words whose units the model spoke as one token group are timed together, as one
 * entry covering them. A timing is handed out once all its units are known.
 */
export class KokoroWordTimer {
  readonly #groups: WordGroup[] = [];
  /** Global index of each chunk's first unit, and one past the last chunk. */
  readonly #chunkUnits: number[] = [];
  readonly #spans: (UnitSpan | undefined)[] = [];
  #next = 0;

  constructor(text: string, chunks: readonly TextChunk[]) {
    const unitKeys: string[] = [];
    for (const chunk of chunks) {
      this.#chunkUnits.push(unitKeys.length);
      for (const unit of spokenUnits(chunk.text)) {
        unitKeys.push(key(chunk.text.slice(unit.start, unit.end)));
      }
    }
    this.#chunkUnits.push(unitKeys.length);
    const words = wordsOf(text);
    const wordKeys = words.map((word) => key(text.slice(word.textStart, word.textEnd)));
    for (const [w0, w1, u0, u1] of pairWords(wordKeys, unitKeys)) {
      if (w1 === w0) continue; // units the text does not have as words (`and` in `$5.50`)
      this.#groups.push({
        textStart: words[w0]!.textStart,
        textEnd: words[w1 - 1]!.textEnd,
        unitStart: u0,
        unitEnd: u1,
      });
    }
  }

  /** Chunk `index` was spoken (or skipped) with these spans of its units, in order. */
  chunkDone(index: number, spans: readonly (UnitSpan | undefined)[]): TextTiming[] {
    const first = this.#chunkUnits[index] ?? 0;
    spans.forEach((span, unit) => {
      this.#spans[first + unit] = span;
    });
    return this.#take(this.#chunkUnits[index + 1] ?? 0);
  }

  /** Timings of the groups whose units all lie before `known`. */
  #take(known: number): TextTiming[] {
    const out: TextTiming[] = [];
    let open: { timing: TextTiming; groups: Set<string> } | undefined;
    while (this.#next < this.#groups.length) {
      const group = this.#groups[this.#next]!;
      if (group.unitEnd > known) break;
      this.#next++;
      const spans = this.#spans.slice(group.unitStart, group.unitEnd).filter((s) => s);
      if (spans.length === 0) continue;
      const ids = new Set(spans.map((span) => span!.group));
      const timing: TextTiming = {
        textStart: group.textStart,
        textEnd: group.textEnd,
        startS: Math.min(...spans.map((span) => span!.startS)),
        endS: Math.max(...spans.map((span) => span!.endS)),
      };
      if (open && [...ids].some((id) => open!.groups.has(id))) {
        open.timing = {
          textStart: open.timing.textStart,
          textEnd: timing.textEnd,
          startS: Math.min(open.timing.startS, timing.startS),
          endS: Math.max(open.timing.endS, timing.endS),
        };
        for (const id of ids) open.groups.add(id);
        continue;
      }
      if (open) out.push(open.timing);
      open = { timing, groups: ids };
    }
    if (open) out.push(open.timing);
    return out;
  }
}

/** Where one model run's audio lies in the segment, and the durations the model gave it. */
export interface RunPlacement {
  readonly chunk: number;
  /** Frames of each input token (pads included). */
  readonly durations: Uint16Array;
  /** Model sample where the kept audio starts, and how many samples were kept. */
  readonly trimmedSamples: number;
  readonly keptSamples: number;
  /** Segment sample where the kept audio is placed (after the audio and pauses before it). */
  readonly offsetSamples: number;
  readonly sampleRateHz: number;
}

/**
 * The time span of each unit of one chunk in the segment: a token group spans the frames
 * the model gave its tokens, moved by the silence trimmed before the kept audio and by
 * the audio placed before it; what falls in trimmed silence is clamped to the kept audio.
 */
export function unitSpans(
  groups: readonly (TokenGroup | undefined)[],
  run: RunPlacement,
): (UnitSpan | undefined)[] {
  const frameStarts = new Uint32Array(run.durations.length + 1);
  for (let i = 0; i < run.durations.length; i++) {
    frameStarts[i + 1] = frameStarts[i]! + run.durations[i]!;
  }
  const seconds = (token: number) => {
    const frame = frameStarts[Math.min(token, run.durations.length)]!;
    const kept = Math.min(
      run.keptSamples,
      Math.max(0, frame * KOKORO_FRAME_SAMPLES - run.trimmedSamples),
    );
    return (run.offsetSamples + kept) / run.sampleRateHz;
  };
  return groups.map(
    (group) =>
      group && {
        group: `${run.chunk}:${group.group}`,
        startS: seconds(group.tokenStart),
        endS: seconds(group.tokenEnd),
      },
  );
}
