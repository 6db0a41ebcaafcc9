import { describe, expect, it } from 'vitest';
import { LocalGcra } from '../../../src/ratelimit/local-gcra.ts';

// The per-process GCRA that decides while Redis is out. Times are passed in, in ms of
// performance.now(), so each case is exact.

describe('LocalGcra', () => {
  it('admits the first request of an idle bucket whose cost is its whole burst, at any time', () => {
    // 524249.66631570127 + 1000 - 1000 comes out a hair above it in doubles: computed that
    // way, the wait was positive and the request refused with "retry after 1 s".
    const gcra = new LocalGcra();
    expect(gcra.consume('b', 1000, 1, 1, 524_249.666_315_701_27)).toEqual({
      allowed: true,
      retryAfterMs: 0,
      remaining: 0,
    });
    for (let i = 0; i < 10_000; i++) {
      const now = 1e6 * ((i * 0.618_033_988_749_895) % 1);
      expect(gcra.consume(`idle-${i}`, 1000, 1, 1, now).allowed).toBe(true);
      expect(gcra.consume(`idle-3-${i}`, 60_000 / 7, 3, 3, now).allowed).toBe(true);
    }
  });

  it('refuses the next cell until its interval has passed, with the exact wait', () => {
    const gcra = new LocalGcra();
    const start = 1234.567;
    expect(gcra.consume('b', 1000, 2, 1, start).remaining).toBe(1);
    expect(gcra.consume('b', 1000, 2, 1, start).remaining).toBe(0);
    expect(gcra.consume('b', 1000, 2, 1, start + 250)).toEqual({
      allowed: false,
      retryAfterMs: 750,
      remaining: 0,
    });
    expect(gcra.consume('b', 1000, 2, 1, start + 1000)).toEqual({
      allowed: true,
      retryAfterMs: 0,
      remaining: 0,
    });
  });
});
