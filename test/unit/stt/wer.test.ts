import { describe, expect, it } from 'vitest';
import { normalizeWords, wordEditDistance, wordErrorRate } from '../../helpers/wer.ts';

describe('word error rate', () => {
  it('ignores case and punctuation, keeps apostrophes inside words, spells small numbers', () => {
    expect(normalizeWords("What's the time? It's 7 o'clock, not 12!")).toEqual([
      "what's",
      'the',
      'time',
      "it's",
      'seven',
      "o'clock",
      'not',
      'twelve',
    ]);
    expect(normalizeWords('  well-known “quotes” ')).toEqual(['well', 'known', 'quotes']);
  });

  it('keeps accents and vowel signs in their words, whatever their Unicode form', () => {
    expect(normalizeWords('Aujourd’hui à Paris ?')).toEqual(["aujourd'hui", 'à', 'paris']);
    expect(normalizeWords('¿Qué?')).toEqual(normalizeWords('que\u0301'));
    expect(normalizeWords('आज दिल्ली में मौसम कैसा है।')).toEqual([
      'आज',
      'दिल्ली',
      'में',
      'मौसम',
      'कैसा',
      'है',
    ]);
  });

  it('counts substitutions, deletions and insertions', () => {
    expect(wordEditDistance(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(0);
    expect(wordEditDistance(['a', 'b', 'c'], ['a', 'x', 'c'])).toBe(1);
    expect(wordEditDistance(['a', 'b', 'c'], ['a', 'c'])).toBe(1);
    expect(wordEditDistance(['a', 'b', 'c'], ['a', 'b', 'x', 'c'])).toBe(1);
    expect(wordEditDistance(['a', 'b'], [])).toBe(2);
    expect(wordEditDistance([], ['a'])).toBe(1);
  });

  it('divides by the reference length', () => {
    expect(
      wordErrorRate(
        'Please book a table for two at seven tonight.',
        'Please book a table for 2 at 7 to hide.',
      ),
    ).toBeCloseTo(2 / 9, 10);
    expect(wordErrorRate('Turn off the lights.', 'turn off the lights')).toBe(0);
    expect(wordErrorRate('one two', 'three four five six')).toBe(2);
    expect(wordErrorRate('', '')).toBe(0);
    expect(wordErrorRate('', 'noise')).toBe(1);
  });
});
