/** How a chunk ends, which decides the pause placed after it. */
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
   * cores, plus the silence it makes for the pad token before every input.
   */
  readonly firstChunkWords: number;
  /** A clause or sentence ending within this many words ends the first chunk there. */
  readonly firstClauseMaxWords: number;
  /**
   * A later chunk holds at most this many times the characters before it: its model run
   * then ends before the audio already made has played out.
   */
  readonly growth: number;
  /** Characters a later chunk may hold whatever came before it. */
  readonly minChunkChars: number;
  /** Most characters per chunk; Kokoro takes at most 510 phoneme tokens per run. */
  readonly maxChunkChars: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = {
  firstChunkWords: 4,
  firstClauseMaxWords: 6,
  growth: 2.5,
  minChunkChars: 40,
  maxChunkChars: 220,
};

/** A word of the text and the boundary that follows it. */
interface Word {
  readonly text: string;
  readonly end: ChunkBreak;
}

const SENTENCE = /(?<=[.!?…]["”»']?)\s+|(?<=\n)\s*/u;
const CLAUSE_END = /[,;:—]["”»']?$/u;

/** The words of the text, each with the boundary after it; the last one ends a sentence. */
function wordsOf(text: string): Word[] {
  return text.split(SENTENCE).flatMap((sentence) => {
    const words = sentence.split(/\s+/).filter((word) => word.length > 0);
    return words.map((word, index) => ({
      text: word,
      end: index === words.length - 1 ? 'sentence' : CLAUSE_END.test(word) ? 'clause' : 'word',
    }));
  });
}

/**
 * Words in the first chunk: the first clause (or sentence) when it ends within
 * `firstClauseMaxWords` words, else the first `firstChunkWords`. A text barely longer
 * than that is kept whole: its remainder would cost a model run of its own.
 */
function firstCut(words: readonly Word[], options: ChunkingOptions): number {
  if (words.length <= options.firstChunkWords + 2) return words.length;
  const clause = words.findIndex((word) => word.end !== 'word');
  if (clause >= 0 && clause < options.firstClauseMaxWords) return clause + 1;
  return options.firstChunkWords;
}

/**
 * Words in the chunk starting at `from` when `before` characters were chunked before it.
 * Within the limit: the rest of the text, else up to the last sentence end, else the last
 * clause end (a boundary in the first third is passed over: so short a run is not worth
 * its pad). Past it by at most a quarter: the rest of the text, or the end of the
 * sentence or clause under way, rather than a run of a few words after it. Else the last
 * word within the limit.
 */
function nextCut(
  words: readonly Word[],
  from: number,
  before: number,
  options: ChunkingOptions,
): number {
  const limit = Math.min(
    options.maxChunkChars,
    Math.max(options.minChunkChars, Math.floor(options.growth * before)),
  );
  const slack = Math.min(options.maxChunkChars, Math.floor(limit * 1.25));
  let lastWord = 1;
  let lastClause = 0;
  let lastSentence = 0;
  let chars = -1;
  for (let count = 1; from + count <= words.length; count++) {
    chars += 1 + (words[from + count - 1] as Word).text.length;
    const end = (words[from + count - 1] as Word).end;
    if (chars > limit) {
      if (chars > slack || lastSentence || lastClause) break;
      if (from + count === words.length || end !== 'word') return count;
      continue;
    }
    if (from + count === words.length) return count;
    lastWord = count;
    if (chars < limit / 3) continue;
    if (end === 'sentence') lastSentence = count;
    if (end === 'clause') lastClause = count;
  }
  return lastSentence || lastClause || lastWord;
}

/**
 * Splits normalised text into chunks, one model run each: a short first chunk (the first
 * clause, or the first few words) so first audio comes after one short run, then chunks
 * that grow with the text before them and span sentences, so the text is spoken by few
 * runs (each pays for the silence the model makes for its leading pad) while every run
 * ends before the audio before it has played out. Cuts fall between words only.
 *
 * @example
 * chunkText('Sure, I can help with that. It is booked.');
 * // [{ text: 'Sure,', end: 'clause' }, { text: 'I can help with that. It is booked.', end: 'sentence' }]
 */
export function chunkText(text: string, options: ChunkingOptions = DEFAULT_CHUNKING): TextChunk[] {
  const words = wordsOf(text);
  const chunks: TextChunk[] = [];
  let from = 0;
  let before = 0;
  while (from < words.length) {
    const count =
      chunks.length === 0 ? firstCut(words, options) : nextCut(words, from, before, options);
    const piece = words.slice(from, from + count);
    const chunk = { text: piece.map((word) => word.text).join(' '), end: piece.at(-1)!.end };
    chunks.push(chunk);
    before += chunk.text.length + 1;
    from += count;
  }
  return chunks;
}
