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
   * Words of the first chunk when its sentence is longer: first audio waits for the whole
   * first chunk, and the model needs ~0.6 s of compute per second of audio on two cores.
   */
  readonly firstChunkWords: number;
  /** A clause boundary this early in the first sentence ends the first chunk there instead. */
  readonly firstClauseMaxWords: number;
  /** Most characters per chunk; Kokoro takes at most 510 phoneme tokens per run. */
  readonly maxChunkChars: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = {
  firstChunkWords: 4,
  firstClauseMaxWords: 7,
  maxChunkChars: 220,
};

const SENTENCE = /(?<=[.!?…]["”»']?)\s+|(?<=\n)\s*/u;
const CLAUSE_END = /[,;:—]["”»']?$/u;

function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word.length > 0);
}

/** Splits one sentence at clause punctuation, then at words, into pieces of at most maxChars. */
function splitLong(sentence: string, maxChars: number): TextChunk[] {
  const out: TextChunk[] = [];
  let current: string[] = [];
  const flush = (end: ChunkBreak) => {
    if (current.length > 0) out.push({ text: current.join(' '), end });
    current = [];
  };
  for (const word of words(sentence)) {
    if (current.length > 0 && [...current, word].join(' ').length > maxChars) {
      flush(CLAUSE_END.test(current.at(-1) ?? '') ? 'clause' : 'word');
    }
    current.push(word);
    // Prefer clause ends once a chunk is reasonably long: the model phrases them well.
    if (CLAUSE_END.test(word) && current.join(' ').length > maxChars / 2) flush('clause');
  }
  flush('sentence');
  return out;
}

/** The first chunk of a long first sentence: up to an early clause end, else a few words. */
function splitFirst(sentence: string, options: ChunkingOptions): TextChunk[] {
  const all = words(sentence);
  // A short remainder would only cost a second model run: keep such sentences whole.
  if (all.length <= options.firstChunkWords + 2) return [{ text: sentence, end: 'sentence' }];
  let cut = options.firstChunkWords;
  const clause = all.findIndex((word) => CLAUSE_END.test(word));
  if (clause >= 0 && clause + 1 <= options.firstClauseMaxWords && clause + 1 < all.length) {
    cut = clause + 1;
  }
  const head = all.slice(0, cut).join(' ');
  const rest = all.slice(cut).join(' ');
  return [
    { text: head, end: CLAUSE_END.test(head) ? 'clause' : 'word' },
    ...splitLong(rest, options.maxChunkChars),
  ];
}

/**
 * Splits normalised text into chunks at sentence and clause boundaries, with a short
 * first chunk so the first audio comes early.
 *
 * @example
 * chunkText('Hello there, my friend. How are you?');
 * // [{ text: 'Hello there,', end: 'clause' }, { text: 'my friend.', end: 'sentence' }, ...]
 */
export function chunkText(text: string, options: ChunkingOptions = DEFAULT_CHUNKING): TextChunk[] {
  const sentences = text
    .split(SENTENCE)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
  return sentences.flatMap((sentence, index) =>
    index === 0 ? splitFirst(sentence, options) : splitLong(sentence, options.maxChunkChars),
  );
}
