/** How a chunk ends, which decides how its trailing silence is shaped (see seams.ts). */
export type ChunkBreak = 'sentence' | 'clause' | 'word';

/** One piece of text synthesized by one model run. */
export interface TextChunk {
  readonly text: string;
  readonly end: ChunkBreak;
}

/** Limits of {@link chunkText}; see {@link DEFAULT_CHUNKING}. */
export interface ChunkingOptions {
  /**
   * Words of the first chunk when its first clause is longer: first audio waits for the
   * whole first chunk, and the model needs ~0.4 s of compute per second of audio on two
   * cores.
   */
  readonly firstChunkWords: number;
  /** A clause or sentence ending within this many words ends the first chunk there. */
  readonly firstClauseMaxWords: number;
  /**
   * Each later chunk holds at most this many times the characters of all chunks before
   * it: it is computed while those play, so its audio is ready before they end.
   */
  readonly growth: number;
  /** Fewest characters a later chunk may be limited to (a lone word is never split). */
  readonly minChunkChars: number;
  /** Most characters per chunk; Kokoro takes at most 510 phoneme tokens per run. */
  readonly maxChunkChars: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = {
  firstChunkWords: 4,
  firstClauseMaxWords: 7,
  growth: 2,
  minChunkChars: 24,
  maxChunkChars: 220,
};

const SENTENCE_END = /[.!?…]["”»']?$/u;
const CLAUSE_END = /[,;:—]["”»']?$/u;

/** One word of the text and the break that follows it. */
interface Word {
  readonly text: string;
  readonly end: ChunkBreak;
}

/** Words in order; a line break ends a sentence like a full stop does. */
function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  for (const line of text.split('\n')) {
    const words = line.split(/\s+/).filter((word) => word.length > 0);
    words.forEach((word, index) => {
      const last = index === words.length - 1;
      let end: ChunkBreak = 'word';
      if (last || SENTENCE_END.test(word)) end = 'sentence';
      else if (CLAUSE_END.test(word)) end = 'clause';
      out.push({ text: word, end });
    });
  }
  return out;
}

const join = (words: readonly Word[]) => words.map((word) => word.text).join(' ');

/** Words of the first chunk: the first clause when short, else a few words. */
function firstCut(words: readonly Word[], options: ChunkingOptions): number {
  const clause = words.findIndex((word) => word.end !== 'word');
  const clauseWords = clause < 0 ? words.length : clause + 1;
  if (clauseWords <= options.firstClauseMaxWords) return clauseWords;
  // A short remainder would only cost a second model run: keep such a clause whole.
  if (clauseWords <= options.firstChunkWords + 2) return clauseWords;
  return options.firstChunkWords;
}

/** How many of `words` fit in `budget` characters (at least one). */
function fitting(words: readonly Word[], budget: number): number {
  let fit = 0;
  let length = -1;
  while (fit < words.length && length + 1 + (words[fit] as Word).text.length <= budget) {
    length += 1 + (words[fit] as Word).text.length;
    fit++;
  }
  return Math.max(1, fit);
}

/**
 * A clause may run this far past the budget rather than be cut between words, which the
 * model speaks as two phrases.
 */
const CLAUSE_STRETCH = 1.5;

/**
 * Words of the next chunk within `budget` characters: up to its last sentence end, else
 * its last clause end, when that keeps at least half the budget; else to the end of the
 * clause under way when it ends within the stretch; else as many words as fit.
 */
function nextCut(words: readonly Word[], budget: number, maxChars: number): number {
  const fit = fitting(words, budget);
  if (fit === words.length) return fit;
  for (const kind of ['sentence', 'clause'] as const) {
    for (let cut = fit; cut > 0; cut--) {
      if (words[cut - 1]?.end === kind && join(words.slice(0, cut)).length >= budget / 2) {
        return cut;
      }
    }
  }
  const stretched = fitting(words, Math.min(maxChars, Math.floor(budget * CLAUSE_STRETCH)));
  for (let cut = fit + 1; cut <= stretched; cut++) {
    if (words[cut - 1]?.end !== 'word') return cut;
  }
  return fit;
}

/**
 * Splits normalised text into chunks, one model run each: a short first chunk (the first
 * clause, else a few words) so the first audio comes early, then chunks that grow with
 * the audio already made (at most `growth` times it, within `maxChunkChars`), cut at
 * sentence ends, else clause ends, else words. Sentences share a chunk: one run speaks
 * them with the model's own pauses.
 *
 * @example
 * chunkText('Sure, I can help with that. Your appointment is confirmed.');
 * // [{ text: 'Sure,', end: 'clause' }, { text: 'I can help with that.', end: 'sentence' }, ...]
 */
export function chunkText(text: string, options: ChunkingOptions = DEFAULT_CHUNKING): TextChunk[] {
  const words = wordsOf(text);
  const chunks: TextChunk[] = [];
  let made = 0;
  let at = 0;
  while (at < words.length) {
    const rest = words.slice(at);
    const budget = Math.min(
      options.maxChunkChars,
      Math.max(options.minChunkChars, Math.floor(made * options.growth)),
    );
    const cut = at === 0 ? firstCut(rest, options) : nextCut(rest, budget, options.maxChunkChars);
    const taken = rest.slice(0, cut);
    const chunk = { text: join(taken), end: (taken.at(-1) as Word).end };
    chunks.push(chunk);
    made += chunk.text.length;
    at += cut;
  }
  return chunks;
}
