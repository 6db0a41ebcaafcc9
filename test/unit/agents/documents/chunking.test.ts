import { describe, expect, it } from 'vitest';
import {
  chunkText,
  MAX_CHUNK_CHARS,
} from '../../../../src/agents/capabilities/documents/chunking.ts';
import {
  codePointLength,
  MAX_DOCUMENT_CHARS,
} from '../../../../src/agents/capabilities/documents/document-records.ts';
import { searchTerms } from '../../../../src/agents/capabilities/documents/search-terms.ts';

/** `count` numbered sentences of about 40 characters, tagged with `word`. */
const sentences = (word: string, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `${word} sentence number ${from + i} ends here.`).join(
    ' ',
  );

describe('chunkText', () => {
  it('keeps a short document whole, with its paragraphs', () => {
    const text = 'First paragraph.\r\nStill the first.\n\n\n  Second paragraph.  ';
    expect(chunkText(text)).toEqual(['First paragraph.\nStill the first.\n\nSecond paragraph.']);
    const list = '# Prices\n\n- Tea: 2 EUR\n- Coffee: 3 EUR';
    expect(chunkText(list)).toEqual([list]);
  });

  it('yields nothing for blank text', () => {
    expect(chunkText(' \n\n \t ')).toEqual([]);
  });

  it('cuts between sentences, at most MAX_CHUNK_CHARS each, repeating the last sentence', () => {
    const text = sentences('Alpha', 200);
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(codePointLength(chunk)).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      expect(chunk).toMatch(/^Alpha sentence number \d+ ends here\..*ends here\.$/s);
    }
    for (let i = 1; i < chunks.length; i++) {
      const previousLast = (chunks[i - 1] as string).match(
        /Alpha sentence number \d+ ends here\.$/,
      )?.[0];
      expect((chunks[i] as string).startsWith(previousLast as string)).toBe(true);
    }
    // Every sentence is in some chunk, in order.
    const seen = chunks.flatMap((chunk) =>
      [...chunk.matchAll(/number (\d+)/g)].map((m) => Number(m[1])),
    );
    expect([...new Set(seen)]).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('ends a long enough chunk at a paragraph break so a section stays whole', () => {
    // 30 sentences (about 1,100 characters), then two short sections.
    const text = `${sentences('Alpha', 30)}\n\n${sentences('Beta', 5)}\n\n${sentences('Gamma', 5)}`;
    expect(chunkText(text)).toEqual([
      sentences('Alpha', 30),
      `${sentences('Beta', 5)}\n\n${sentences('Gamma', 5)}`,
    ]);
  });

  it('cuts an overlong sentence after a space, and text without spaces anywhere', () => {
    const words = Array.from({ length: 600 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(words);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(codePointLength(chunk)).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      expect(chunk).toMatch(/^word\d+( word\d+)*$/);
    }
    expect(chunks.join(' ')).toBe(words);
    const unbroken = '知'.repeat(MAX_CHUNK_CHARS * 2 + 10);
    const pieces = chunkText(unbroken);
    expect(pieces.join('')).toBe(unbroken);
    for (const piece of pieces) expect(codePointLength(piece)).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
  });

  it('chunks the longest document quickly, whatever its characters', () => {
    // Intl.Segmenter is quadratic on long strings: the chunker and searchTerms feed it pieces.
    for (const unit of ['\u{1D11E}', 'y', 'The cat sat. ', '知识', '\n\n']) {
      const text = unit
        .repeat(Math.ceil(MAX_DOCUMENT_CHARS / unit.length))
        .slice(0, MAX_DOCUMENT_CHARS);
      const chunks = chunkText(text);
      for (const chunk of chunks) {
        expect(codePointLength(chunk)).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
        expect(searchTerms(chunk).length).toBeLessThanOrEqual(chunk.length);
      }
      // All of the text is in the chunks (repeated sentences aside), in order.
      const stripped = (value: string) => value.replace(/\s/g, '');
      expect(stripped(chunks.join('')).length).toBeGreaterThanOrEqual(stripped(text).length);
      expect(stripped(text).startsWith(stripped(chunks[0] ?? ''))).toBe(true);
      expect(stripped(text).endsWith(stripped(chunks.at(-1) ?? ''))).toBe(true);
    }
  });

  it('counts characters as code points', () => {
    const emoji = '🙂'.repeat(MAX_CHUNK_CHARS);
    expect(chunkText(emoji)).toEqual([emoji]);
  });
});
