/**
 * How long an upstream request may wait at each stage before it fails as
 * `ProviderError('unavailable')`. Waiting for a concurrency slot is not counted.
 */
export interface UpstreamTimeouts {
  /** From sending the request until the TCP connection is open (new connections only). */
  readonly connectTimeoutMs: number;
  /** From sending the request until the response status and headers arrive. */
  readonly firstByteTimeoutMs: number;
  /** Longest silence between two body chunks, and between the headers and the first chunk. */
  readonly idleTimeoutMs: number;
}

/** Defaults: generous enough for slow expressive models, short enough to fail a dead link. */
export const DEFAULT_UPSTREAM_TIMEOUTS: UpstreamTimeouts = {
  connectTimeoutMs: 5_000,
  firstByteTimeoutMs: 30_000,
  idleTimeoutMs: 15_000,
};

/**
 * Fills in defaults and checks every value is a positive finite number of milliseconds.
 *
 * @example
 * resolveTimeouts({ idleTimeoutMs: 5_000 }) // connect 5 s, first byte 30 s, idle 5 s
 */
export function resolveTimeouts(overrides: Partial<UpstreamTimeouts> = {}): UpstreamTimeouts {
  const timeouts = { ...DEFAULT_UPSTREAM_TIMEOUTS, ...overrides };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
    }
  }
  return timeouts;
}
