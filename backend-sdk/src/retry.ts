/**
 * Retry timing: jittered exponential backoff, and the service's `Retry-After` when it sent
 * one. Pure functions, so the arithmetic is tested without waiting.
 */

/** How retries are spaced and bounded. */
export interface RetryPolicy {
  /** Attempts in total, the first included; 1 disables retries. */
  maxAttempts: number;
  /** Ceiling of the delay before the second attempt; it doubles per attempt. */
  initialDelayMs: number;
  /** Ceiling of any backoff delay. */
  maxDelayMs: number;
  /**
   * The longest `Retry-After` the SDK waits for. A service asking for longer gets the error
   * thrown at once (with its `retryAfterMs`), so no call blocks for minutes unasked.
   */
  maxRetryAfterMs: number;
}

/** Defaults: 3 attempts, 0.5 s doubling up to 8 s, `Retry-After` honoured up to 60 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Delay before attempt `failedAttempts + 1`, after `failedAttempts` failures (1 or more):
 * "equal jitter", uniformly between half and all of `min(maxDelayMs, initialDelayMs *
 * 2^(failedAttempts-1))`. Half is kept so delays still grow while clients that failed
 * together spread apart.
 */
export function backoffDelayMs(
  failedAttempts: number,
  policy: Pick<RetryPolicy, 'initialDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, failedAttempts - 1);
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Milliseconds a `Retry-After` value asks for: delay-seconds (`"3"`, `"1.5"`) or an HTTP
 * date. Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfterMs(
  value: string | null | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date names its weekday and month; bare numbers like "-1" are not dates.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

/**
 * The wait before the next attempt, or undefined when no further attempt should be made:
 * attempts are used up, or the service asked to wait longer than `maxRetryAfterMs`. A
 * `Retry-After` is taken as given (the service knows when capacity returns); otherwise the
 * jittered backoff applies.
 */
export function nextRetryDelayMs(
  failedAttempts: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (failedAttempts >= policy.maxAttempts) return undefined;
  if (retryAfterMs !== undefined) {
    return retryAfterMs <= policy.maxRetryAfterMs ? retryAfterMs : undefined;
  }
  return backoffDelayMs(failedAttempts, policy, random);
}
