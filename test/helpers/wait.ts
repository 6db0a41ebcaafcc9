import { setTimeout as sleepMs } from 'node:timers/promises';

/**
 * How long a test waits for something that happens within moments on an idle machine (a
 * row written, a log line flushed, a process reaped) before it calls it missing. Generous on
 * purpose: on a busy 2-core machine such events can take seconds, and a deadline is only
 * there to turn a real hang into a readable failure.
 */
export const EVENT_DEADLINE_MS = 45_000;

/**
 * Per-test budgets for work whose duration depends on the machine, from what a test waits
 * for rather than from how long it took on a warm one. Sum them with {@link budget}.
 */
export const BUDGET_MS = {
  /**
   * Starting the api process until both listeners are up: 14 s were measured at a load
   * average of 10 on two cores (tsx transpiles on start).
   */
  server: 60_000,
  /** One run of the operator tool (`bin/awp.js`): a Node start, a database, an exit. */
  awpRun: 15_000,
  /** Anything else the test waits on: a handful of requests, a short synthesis. */
  base: 30_000,
} as const;

/**
 * A test or hook timeout for one that starts `servers` api processes, runs the operator
 * tool `awpRuns` times and waits `extraMs` on top of the base.
 *
 * @example
 * ```ts
 * it('bootstraps a workspace', { timeout: budget({ awpRuns: 12 }) }, async () => { ... });
 * ```
 */
export function budget(parts: { servers?: number; awpRuns?: number; extraMs?: number }): number {
  return (
    BUDGET_MS.base +
    (parts.servers ?? 0) * BUDGET_MS.server +
    (parts.awpRuns ?? 0) * BUDGET_MS.awpRun +
    (parts.extraMs ?? 0)
  );
}

export interface WaitOptions {
  /** What is awaited, for the error message: "the ledger row to close". */
  what: string;
  /** Give up after this long. Default {@link EVENT_DEADLINE_MS}. */
  timeoutMs?: number;
  /** Pause between probes. Default 25 ms. */
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns something other than `undefined`, `null` or `false`, and
 * resolves with that value. A probe that throws counts as "not yet" (so it may use
 * `expect`); the last error is part of the timeout message.
 *
 * @example
 * ```ts
 * const row = await waitFor(
 *   async () => (await findRow(requestId))?.status === 'failed' && (await findRow(requestId)),
 *   { what: `ledger row ${requestId} to fail` },
 * );
 * ```
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: WaitOptions,
): Promise<Exclude<T, undefined | null | false>> {
  const { what, timeoutMs = EVENT_DEADLINE_MS, intervalMs = 25 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) {
        return value as Exclude<T, undefined | null | false>;
      }
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const last = lastError === undefined ? '' : `; last probe failed: ${String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`, {
        cause: lastError,
      });
    }
    await sleepMs(intervalMs);
  }
}

/**
 * Resolves with `promise`'s value, or with `fallback` once `timeoutMs` passed: for an event
 * that a real defect would make never happen (a connection that is never closed).
 */
export async function within<T, F>(promise: Promise<T>, timeoutMs: number, fallback: F) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A fixed pause, only for when the passing of time is itself what a test exercises (a
 * client that stops reading for a while, waiting past a cache lifetime or a refill time).
 * To wait until something has happened, use {@link waitFor}.
 */
export function sleep(ms: number): Promise<void> {
  return sleepMs(ms);
}
