import type { Redis } from 'ioredis';
import { ApiError } from '../../errors.ts';
import { settleWithin } from '../../system/deadline.ts';

/** A held slot is refreshed this often; a slot not refreshed for LEASE_MS is free again. */
const REFRESH_MS = 10_000;
const LEASE_MS = 30_000;
const TIMEOUT_MS = 500;

const COMMAND = 'awpStreamSlotAcquire';

// KEYS[1] = the workspace's sorted set (member = request id, score = lease expiry in ms).
// ARGV: now, lease expiry, limit, member. Returns 1 when the slot was taken.
const ACQUIRE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ${LEASE_MS * 2})
return 1
`;

type SlotClient = Redis & {
  [COMMAND](
    key: string,
    now: number,
    expiry: number,
    limit: number,
    member: string,
  ): Promise<number>;
};

/** A taken slot; `release` frees it (idempotent). */
export interface StreamSlot {
  release(): void;
}

/**
 * Caps concurrent streaming requests per workspace across every api process: one Redis
 * sorted set per workspace holds a lease per open stream, refreshed while it runs, so a
 * crashed process's streams free their slots within 30 seconds. When Redis does not answer
 * the stream is counted against the same limit in this process alone (and `onError` told):
 * a limiter outage is not a synthesis outage, nor a limit turned off.
 */
export class StreamSlots {
  readonly #redis: SlotClient;
  /** Streams admitted by the per-process fallback, by workspace. */
  readonly #local = new Map<string, number>();

  constructor(
    redis: Redis,
    private readonly options: {
      prefix: string;
      /** Streams per workspace; 0 means unlimited. */
      maxPerWorkspace: number;
      onError?: (error: unknown) => void;
      /** Called when a check reached Redis (ends an outage the caller reported). */
      onRecovered?: () => void;
    },
  ) {
    if (!(COMMAND in redis)) {
      redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: ACQUIRE_SCRIPT });
    }
    this.#redis = redis as SlotClient;
  }

  /** Takes a slot or throws `429 rate_limited`. */
  async acquire(workspaceId: string, requestId: string): Promise<StreamSlot> {
    const limit = this.options.maxPerWorkspace;
    if (limit === 0) return { release: () => {} };
    const key = `${this.options.prefix}:streams:${workspaceId}`;
    let taken: number;
    try {
      const now = Date.now();
      taken = await withTimeout(
        this.#redis[COMMAND](key, now, now + LEASE_MS, limit, requestId),
        TIMEOUT_MS,
      );
    } catch (error) {
      this.options.onError?.(error);
      return this.#acquireLocal(workspaceId, limit);
    }
    this.options.onRecovered?.();
    if (taken !== 1) throw tooMany(limit);
    const refresh = setInterval(() => {
      this.#redis.zadd(key, Date.now() + LEASE_MS, requestId).catch(() => {});
    }, REFRESH_MS);
    refresh.unref();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        clearInterval(refresh);
        this.#redis.zrem(key, requestId).catch(() => {});
      },
    };
  }

  /** The fallback while Redis is out: the same limit, counted in this process only. */
  #acquireLocal(workspaceId: string, limit: number): StreamSlot {
    const open = this.#local.get(workspaceId) ?? 0;
    if (open >= limit) throw tooMany(limit);
    this.#local.set(workspaceId, open + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.#local.get(workspaceId) ?? 1) - 1;
        if (left <= 0) this.#local.delete(workspaceId);
        else this.#local.set(workspaceId, left);
      },
    };
  }
}

function tooMany(limit: number): ApiError {
  return new ApiError(
    'rate_limited',
    `The workspace already has ${limit} streams open; retry when one finishes.`,
    { retryAfterSeconds: 1 },
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return settleWithin(promise, ms, () => {
    throw new Error(`stream slot check timed out after ${ms} ms`);
  });
}
