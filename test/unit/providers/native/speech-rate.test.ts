import { describe, expect, it } from 'vitest';
import { wordsPerMinute } from '../../../../src/tts/providers/native/index.ts';

describe('speed to espeak-ng words per minute', () => {
  it.each([
    [undefined, 175],
    [1, 175],
    [1.2, 210],
    [0.5, 88],
    [2, 350],
    [2.5, 438],
    [3, 450],
    [10, 450],
    [0.4, 80],
    [0, 175],
    [-1, 175],
    [Number.NaN, 175],
    [Number.POSITIVE_INFINITY, 175],
  ])('speed %s -> %i wpm', (speed, wpm) => {
    expect(wordsPerMinute(speed)).toBe(wpm);
  });
});
