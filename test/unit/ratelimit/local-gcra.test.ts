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

  it('decides several buckets at once like the Redis script: all or none take the cost', () => {
    const gcra = new LocalGcra();
    const start = 5000;
    const key = { bucket: 'key', intervalMs: 1000, burst: 3 };
    const workspace = { bucket: 'workspace', intervalMs: 500, burst: 2 };
    expect(gcra.consumeAll([key, workspace], 1, start)).toEqual({
      allowed: true,
      retryAfterMs: 0,
      remaining: 1,
    });
    expect(gcra.consumeAll([key, workspace], 1, start).remaining).toBe(0);
    // The workspace is empty until its cell comes back 500 ms after the start.
    expect(gcra.consumeAll([key, workspace], 1, start + 100)).toEqual({
      allowed: false,
      retryAfterMs: 400,
      remaining: 0,
    });
    // The refusal took nothing from the key: its third cell is still there.
    expect(gcra.consume('key', 1000, 3, 1, start + 100)).toEqual({
      allowed: true,
      retryAfterMs: 0,
      remaining: 0,
    });
    // Now the key decides the wait: its next cell comes 1 s after the start.
    expect(gcra.consumeAll([key, workspace], 1, start + 600)).toEqual({
      allowed: false,
      retryAfterMs: 400,
      remaining: 0,
    });
  });
});
