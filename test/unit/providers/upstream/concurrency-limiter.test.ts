import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../../src/tts/providers/errors.ts';
import { ConcurrencyLimiter } from '../../../../src/tts/providers/upstream/index.ts';

const never = new AbortController().signal;

describe('ConcurrencyLimiter', () => {
  it('grants up to the limit at once and queues the rest', async () => {
    const limiter = new ConcurrencyLimiter(2);
    await limiter.acquire(never);
    await limiter.acquire(never);
    let third = false;
    void limiter.acquire(never).then(() => {
      third = true;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    expect(limiter.stats).toEqual({ limit: 2, active: 2, waiting: 1 });
  });

  it('hands freed slots to waiters in FIFO order', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire(never);
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      limiter.acquire(never).then((releaseNext) => {
        order.push(n);
        releaseNext();
      }),
    );
    release();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(limiter.stats).toEqual({ limit: 1, active: 0, waiting: 0 });
  });

  it('a newcomer does not overtake a waiter when a slot frees', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire(never);
    const order: string[] = [];
    const waiting = limiter.acquire(never).then((r) => {
      order.push('waiter');
      return r;
    });
    release();
    const newcomer = limiter.acquire(never).then((r) => {
      order.push('newcomer');
      r();
    });
    (await waiting)();
    await newcomer;
    expect(order).toEqual(['waiter', 'newcomer']);
  });

  it('a waiter whose signal aborts leaves the queue with signal.reason', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire(never);
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    const behind = limiter.acquire(never);
    expect(limiter.stats.waiting).toBe(2);
    const reason = new Error('gone');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(limiter.stats.waiting).toBe(1);
    release();
    (await behind)();
    expect(limiter.stats).toEqual({ limit: 1, active: 0, waiting: 0 });
  });

  it('an aborted signal never queues', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const controller = new AbortController();
    const reason = new Error('already');
    controller.abort(reason);
    await expect(limiter.acquire(controller.signal)).rejects.toBe(reason);
    expect(limiter.stats).toEqual({ limit: 1, active: 0, waiting: 0 });
  });

  it('releasing twice frees one slot only', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const release = await limiter.acquire(never);
    await limiter.acquire(never);
    release();
    release();
    expect(limiter.stats.active).toBe(1);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses the limit %s', (limit) => {
    expect(() => new ConcurrencyLimiter(limit)).toThrow(RangeError);
  });

  it('refuses a caller beyond the queue length at once, as a retryable overload', async () => {
    const outcomes: string[] = [];
    const limiter = new ConcurrencyLimiter(1, {
      maxWaiting: 1,
      onWaited: (_ms, outcome) => outcomes.push(outcome),
    });
    const release = await limiter.acquire(never);
    const queued = limiter.acquire(never);
    const refused = limiter.acquire(never);
    await expect(refused).rejects.toBeInstanceOf(ProviderError);
    const error = (await refused.catch((e: unknown) => e)) as ProviderError;
    expect(error.failure).toBe('overloaded');
    expect(error.toApiError().code).toBe('provider_unavailable');
    expect(error.toApiError().retryable).toBe(true);
    expect(limiter.stats).toEqual({ limit: 1, active: 1, waiting: 1 });
    release();
    (await queued)();
    expect(limiter.stats).toEqual({ limit: 1, active: 0, waiting: 0 });
    expect(outcomes).toEqual(['full', 'granted']);
  });

  it('refuses a waiter whose deadline passes, and frees its place in the queue', async () => {
    const limiter = new ConcurrencyLimiter(1, { maxWaitMs: 50 });
    const release = await limiter.acquire(never);
    const waiting = limiter.acquire(never);
    await expect(waiting).rejects.toMatchObject({ failure: 'overloaded' });
    expect(limiter.stats).toEqual({ limit: 1, active: 1, waiting: 0 });
    release();
    expect(limiter.stats).toEqual({ limit: 1, active: 0, waiting: 0 });
    // The slot is whole again: the next caller gets it without waiting.
    (await limiter.acquire(never))();
  });
});
