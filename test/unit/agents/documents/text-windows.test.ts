import { describe, expect, it } from 'vitest';
import { textWindows } from '../../../../src/agents/capabilities/documents/text-windows.ts';

describe('textWindows', () => {
  it('gives short text whole', () => {
    expect([...textWindows('short text', 100)]).toEqual(['short text']);
    expect([...textWindows('', 100)]).toEqual([]);
  });

  it('cuts after the last white space of the second half of each window', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta';
    const windows = [...textWindows(text, 12)];
    expect(windows.join('')).toBe(text);
    expect(windows).toEqual(['alpha beta ', 'gamma delta ', 'epsilon ', 'zeta eta ', 'theta']);
    for (const window of windows) expect(window.length).toBeLessThanOrEqual(12);
  });

  it('cuts text without white space at the size, never inside a surrogate pair', () => {
    const text = `a${'\u{1D11E}'.repeat(10)}`;
    const windows = [...textWindows(text, 4)];
    expect(windows.join('')).toBe(text);
    for (const window of windows) {
      expect(window.length).toBeLessThanOrEqual(4);
      // A lone surrogate would come back from UTF-8 as U+FFFD.
      expect(Buffer.from(window, 'utf8').toString('utf8')).toBe(window);
    }
  });
});
