import { describe, expect, it } from 'vitest';
import { codePointCount, splitText } from '../../../../src/tts/providers/upstream/index.ts';

describe('splitText', () => {
  it('returns text within the limit as one unchanged part', () => {
    expect(splitText('  Hello there.  ', 20)).toEqual(['  Hello there.  ']);
  });

  it('packs whole sentences into parts up to the limit', () => {
    const text = 'One two. Three four five. Six. Seven eight nine ten.';
    const parts = splitText(text, 25);
    expect(parts).toEqual(['One two. Three four five.', 'Six.', 'Seven eight nine ten.']);
    for (const part of parts) expect(codePointCount(part)).toBeLessThanOrEqual(25);
  });

  it('splits on sentence ends in other scripts', () => {
    const text = '今日は晴れです。明日は雨でしょう。明後日は曇りです。';
    expect(splitText(text, 10)).toEqual([
      '今日は晴れです。',
      '明日は雨でしょう。',
      '明後日は曇りです。',
    ]);
  });

  it('splits a sentence longer than the limit between words', () => {
    const parts = splitText('alpha beta gamma delta epsilon zeta eta theta.', 16);
    expect(parts).toEqual(['alpha beta gamma', 'delta epsilon', 'zeta eta theta.']);
  });

  it('splits a word longer than the limit between code points, never inside one', () => {
    const parts = splitText('😀😀😀😀😀 ok', 2);
    expect(parts).toEqual(['😀😀', '😀😀', '😀', 'ok']);
  });

  it('keeps every character: joining the parts gives the text back', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Sentence ${i} has some words in it.`).join(
      ' ',
    );
    expect(splitText(text, 100).join(' ')).toBe(text);
  });

  it.each([0, -3, 2.5])('refuses the limit %s', (limit) => {
    expect(() => splitText('text', limit)).toThrow(RangeError);
  });
});
