// The batcher's flush rules: a batch goes out when full or its delay after the first item
// passed, whichever comes first; flush() and close() send what is pending.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Batcher } from '../../../src/jobs/batcher.ts';

describe('Batcher', () => {
  let sent: number[][];
  const send = async (items: number[]) => {
    sent.push(items);
  };

  beforeEach(() => {
    sent = [];
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  /** Lets the microtasks that start a send run. */
  const settle = () => vi.advanceTimersByTimeAsync(0);

  it('sends a batch as soon as it holds maxItems, without waiting for the timer', async () => {
    const batcher = new Batcher({ maxItems: 3, maxDelayMs: 100, send });
    for (const item of [1, 2, 3, 4]) batcher.add(item);
    await settle();
    expect(sent).toEqual([[1, 2, 3]]);
    expect(batcher.pendingCount).toBe(1);
  });

  it('sends a partial batch maxDelayMs after its first item', async () => {
    const batcher = new Batcher({ maxItems: 64, maxDelayMs: 100, send });
    batcher.add(1);
    await vi.advanceTimersByTimeAsync(60);
    batcher.add(2);
    await vi.advanceTimersByTimeAsync(39);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual([[1, 2]]);
    // The next batch has a timer of its own, from its own first item.
    batcher.add(3);
    await vi.advanceTimersByTimeAsync(99);
    expect(sent).toEqual([[1, 2]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual([[1, 2], [3]]);
  });

  it('starts no timer for a batch that was sent full', async () => {
    const batcher = new Batcher({ maxItems: 2, maxDelayMs: 100, send });
    batcher.add(1);
    batcher.add(2);
    await settle();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(500);
    expect(sent).toEqual([[1, 2]]);
  });

  it('flush() sends what is pending and waits for sends in flight', async () => {
    let release: () => void = () => {};
    const slow = (items: number[]) =>
      new Promise<void>((resolve) => {
        sent.push(items);
        release = resolve;
      });
    const batcher = new Batcher({ maxItems: 64, maxDelayMs: 100, send: slow });
    batcher.add(1);
    let flushed = false;
    const flushing = batcher.flush().then(() => {
      flushed = true;
    });
    await settle();
    expect(sent).toEqual([[1]]);
    expect(flushed).toBe(false);
    release();
    await flushing;
    expect(flushed).toBe(true);
    await batcher.flush();
    expect(sent).toEqual([[1]]);
  });

  it('close() sends the pending batch, then sends each later item at once', async () => {
    const batcher = new Batcher({ maxItems: 64, maxDelayMs: 100, send });
    batcher.add(1);
    batcher.add(2);
    await batcher.close();
    expect(sent).toEqual([[1, 2]]);
    batcher.add(3);
    await settle();
    expect(sent).toEqual([[1, 2], [3]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('survives a send that rejects or throws', async () => {
    const failing = (items: number[]) => {
      sent.push(items);
      if (items[0] === 1) throw new Error('thrown at once');
      return Promise.reject(new Error('rejected'));
    };
    const batcher = new Batcher({ maxItems: 1, maxDelayMs: 100, send: failing });
    batcher.add(1);
    batcher.add(2);
    await expect(batcher.flush()).resolves.toBeUndefined();
    expect(sent).toEqual([[1], [2]]);
  });
});
