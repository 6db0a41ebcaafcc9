import { codePointLength } from './document-records.ts';
import { textWindows } from './text-windows.ts';

/** Longest chunk, in code points (about 250 English words). */
export const MAX_CHUNK_CHARS = 1500;
/** A chunk this long ends at the next paragraph break rather than run on. */
const PARAGRAPH_BREAK_CHARS = 900;
/** The last sentence of a chunk is repeated at the start of the next when at most this long. */
const MAX_OVERLAP_CHARS = 300;
/** The longest text a segmenter is given at once (see text-windows.ts). */
const SEGMENTER_WINDOW = 1000;

const SENTENCES = new Intl.Segmenter('und', { granularity: 'sentence' });

/** One sentence (or a piece of an overlong one) and whether a paragraph begins with it. */
interface Unit {
  /** As written, with the spaces and line breaks that follow it inside its paragraph. */
  text: string;
  chars: number;
  paragraphStart: boolean;
}

/**
 * Splits a document into the pieces search returns: at most {@link MAX_CHUNK_CHARS} code
 * points each, cut between paragraphs where possible, else between sentences, else (a
 * sentence of more than 1,000 characters) after a space, else (text without spaces) anywhere. A
 * chunk that has reached {@link PARAGRAPH_BREAK_CHARS} ends at the next paragraph break, so
 * a short section stays whole. A chunk cut inside a paragraph opens the next one with its
 * last sentence (when short), so a fact that spans the cut is found with its context.
 * Paragraphs are separated by a blank line; inside one, line breaks are kept (Markdown
 * lists and tables stay as written).
 */
export function chunkText(text: string): string[] {
  const chunks: string[] = [];
  let current: Unit[] = [];
  let size = 0;
  const sizeWith = (unit: Unit) =>
    current.length === 0 ? unit.chars : size + (unit.paragraphStart ? 2 : 0) + unit.chars;
  for (const unit of toUnits(text)) {
    const full = sizeWith(unit) > MAX_CHUNK_CHARS;
    const sectionDone = unit.paragraphStart && size >= PARAGRAPH_BREAK_CHARS;
    if (current.length > 0 && (full || sectionDone)) {
      chunks.push(render(current));
      const last = current.at(-1) as Unit;
      current = [];
      size = 0;
      const overlap =
        !unit.paragraphStart &&
        last.chars <= MAX_OVERLAP_CHARS &&
        last.chars + unit.chars <= MAX_CHUNK_CHARS;
      if (overlap) {
        current = [last];
        size = last.chars;
      }
    }
    size = sizeWith(unit);
    current.push(unit);
  }
  if (current.length > 0) chunks.push(render(current));
  return chunks;
}

function render(units: readonly Unit[]): string {
  return units
    .map((unit, i) => (i > 0 && unit.paragraphStart ? `\n\n${unit.text}` : unit.text))
    .join('')
    .trim();
}

function toUnits(text: string): Unit[] {
  const units: Unit[] = [];
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
  for (const paragraph of paragraphs) {
    let first = true;
    // A sentence longer than a window is cut at the window's end.
    for (const window of textWindows(paragraph, SEGMENTER_WINDOW)) {
      for (const { segment } of SENTENCES.segment(window)) {
        units.push({ text: segment, chars: codePointLength(segment), paragraphStart: first });
        first = false;
      }
    }
  }
  return units;
}
