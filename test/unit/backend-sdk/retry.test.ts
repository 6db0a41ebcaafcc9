// Retry timing of the server SDK: the backoff arithmetic, Retry-After parsing, and when no
// further attempt is made.
import { describe, expect, it } from 'vitest';
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  nextRetryDelayMs,
  parseRetryAfterMs,
} from '../../../backend-sdk/src/retry.ts';

const POLICY = { maxAttempts: 5, initialDelayMs: 500, maxDelayMs: 4_000, maxRetryAfterMs: 30_000 };

describe('backoffDelayMs', () => {
  it('doubles the ceiling per failed attempt up to maxDelayMs', () => {
    // random() = 1 gives the ceiling itself.
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(n, POLICY, () => 1))).toEqual([
      500, 1_000, 2_000, 4_000, 4_000, 4_000,
    ]);
  });

  it('never goes below half the ceiling (equal jitter)', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, POLICY, () => 0))).toEqual([
      250, 500, 1_000, 2_000,
    ]);
  });

  it('spreads uniformly between half and all of the ceiling', () => {
    expect(backoffDelayMs(3, POLICY, () => 0.5)).toBe(1_500);
    expect(backoffDelayMs(3, POLICY, () => 0.25)).toBe(1_250);
    for (let i = 0; i < 200; i++) {
      const delay = backoffDelayMs(2, POLICY);
      expect(delay).toBeGreaterThanOrEqual(500);
      expect(delay).toBeLessThanOrEqual(1_000);
    }
  });

  it('treats attempt numbers below one as the first', () => {
    expect(backoffDelayMs(0, POLICY, () => 1)).toBe(500);
  });
});

describe('parseRetryAfterMs', () => {
  it('reads delay-seconds, whole and fractional', () => {
    expect(parseRetryAfterMs('3')).toBe(3_000);
    expect(parseRetryAfterMs('0')).toBe(0);
    expect(parseRetryAfterMs(' 1.5 ')).toBe(1_500);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    const now = () => Date.parse('Mon, 23 Nov 2026 10:00:00 GMT');
    expect(parseRetryAfterMs('Mon, 23 Nov 2026 10:00:07 GMT', now)).toBe(7_000);
    expect(parseRetryAfterMs('Mon, 23 Nov 2026 09:59:00 GMT', now)).toBe(0);
  });

  it('ignores absent and unreadable values', () => {
    expect(parseRetryAfterMs(null)).toBeUndefined();
    expect(parseRetryAfterMs(undefined)).toBeUndefined();
    expect(parseRetryAfterMs('')).toBeUndefined();
    expect(parseRetryAfterMs('soon')).toBeUndefined();
    expect(parseRetryAfterMs('-1')).toBeUndefined();
  });
});

describe('nextRetryDelayMs', () => {
  it('stops once maxAttempts attempts have failed', () => {
    expect(nextRetryDelayMs(4, undefined, POLICY, () => 1)).toBe(4_000);
    expect(nextRetryDelayMs(5, undefined, POLICY, () => 1)).toBeUndefined();
    expect(nextRetryDelayMs(1, undefined, { ...POLICY, maxAttempts: 1 })).toBeUndefined();
  });

  it('takes Retry-After as given instead of the backoff', () => {
    expect(nextRetryDelayMs(1, 12_000, POLICY, () => 0)).toBe(12_000);
    expect(nextRetryDelayMs(3, 0, POLICY, () => 1)).toBe(0);
  });

  it('gives up when Retry-After asks for longer than maxRetryAfterMs', () => {
    expect(nextRetryDelayMs(1, 30_000, POLICY)).toBe(30_000);
    expect(nextRetryDelayMs(1, 30_001, POLICY)).toBeUndefined();
  });

  it('defaults to three attempts, 0.5 s doubling to 8 s, Retry-After up to 60 s', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxAttempts: 3,
      initialDelayMs: 500,
      maxDelayMs: 8_000,
      maxRetryAfterMs: 60_000,
    });
  });
});
