import { describe, expect, it } from 'vitest';
import {
  MAX_TERM_CHARS,
  searchTerms,
} from '../../../../src/agents/capabilities/documents/search-terms.ts';

describe('searchTerms', () => {
  it('lower-cases, drops punctuation and keeps digits as terms', () => {
    expect(searchTerms('Hello, World! Order #4521 ships in 2-3 days.')).toEqual([
      'hello',
      'world',
      'order',
      '4521',
      'ship',
      'in',
      '2',
      '3',
      'day',
    ]);
  });

  it('folds accents and compatibility forms, not the letters of other scripts', () => {
    expect(searchTerms('Café ÉTÉ naïve Ｆｕｌｌ Ελλάδα')).toEqual([
      'cafe',
      'ete',
      'naive',
      'full',
      'ελλαδα',
    ]);
    // Japanese voicing marks and Hindi vowel signs are part of the letters.
    expect(searchTerms('が')).toEqual(['が']);
    expect(searchTerms('नमस्ते दुनिया')).toEqual(['नमस्ते', 'दुनिया']);
  });

  it('joins words across inner apostrophes and cuts them at other marks', () => {
    expect(searchTerms("don't it’s the user's COVID-19 e-mail")).toEqual([
      'dont',
      'its',
      'the',
      'user',
      'covid',
      '19',
      'e',
      'mail',
    ]);
  });

  it('reduces English plurals with the S-stemmer, so singular and plural match', () => {
    const same = [
      ['policy', 'policies'],
      ['refund', 'refunds'],
      ['use', 'uses'],
      ['class', 'classes'],
      ['shoe', 'shoes'],
      ['tree', 'trees'],
      ['invoice', 'invoices'],
    ];
    for (const [singular, plural] of same) {
      expect(searchTerms(plural as string)).toEqual(searchTerms(singular as string));
      expect(searchTerms(plural as string)).toEqual([singular]);
    }
    // Words that only look plural, and words shorter than four letters, stay.
    for (const word of ['status', 'glass', 'gas', 'bus', 'yes']) {
      expect(searchTerms(word)).toEqual([word]);
    }
  });

  it('indexes Chinese, Japanese and Korean as overlapping character pairs', () => {
    expect(searchTerms('知识库')).toEqual(['知识', '识库']);
    expect(searchTerms('猫')).toEqual(['猫']);
    expect(searchTerms('返金ポリシー')).toEqual(['返金', '金ポ', 'ポリ', 'リシ', 'シー']);
    expect(searchTerms('학교에 갑니다')).toEqual(['학교', '교에', '갑니', '니다']);
    // A query's pairs are among the document's, wherever a dictionary would cut.
    const document = new Set(searchTerms('我们的退款政策很简单'));
    expect(searchTerms('退款政策').every((term) => document.has(term))).toBe(true);
  });

  it('splits Thai words with the Unicode word rules', () => {
    expect(searchTerms('ภาษาไทยง่ายนิดเดียว')).toEqual(['ภาษา', 'ไทย', 'ง่าย', 'นิด', 'เดียว']);
  });

  it('leaves out overlong terms and yields nothing for text without words', () => {
    expect(searchTerms(`a${'b'.repeat(MAX_TERM_CHARS)} keep`)).toEqual(['keep']);
    expect(searchTerms('b'.repeat(MAX_TERM_CHARS))).toEqual(['b'.repeat(MAX_TERM_CHARS)]);
    expect(searchTerms('  ... ?! 🙂 —  ')).toEqual([]);
  });

  it('gives every term as letters, marks and digits only (safe to quote in both indexes)', () => {
    const terms = searchTerms(
      '"quoted" \'single\' back\\slash a*b (x) [y] {z} <tag> 50% $5 _under_',
    );
    for (const term of terms) expect(term).toMatch(/^[\p{L}\p{M}\p{N}]+$/u);
    expect(terms).toContain('quoted');
    expect(terms).toContain('under');
  });
});
