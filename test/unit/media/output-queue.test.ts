import { describe, expect, it } from 'vitest';
import { OutputQueue } from '../../../media/output-queue.ts';

describe('OutputQueue', () => {
  it('holds writers at the high-water mark until the consumer reads', async () => {
    const queue = new OutputQueue(10);
    queue.push(Buffer.alloc(6));
    await queue.whenWritable(); // below the mark: resolves at once
    queue.push(Buffer.alloc(6));
    let writable = false;
    const waiting = queue.whenWritable().then(() => {
      writable = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(writable).toBe(false);

    const iterator = queue[Symbol.asyncIterator]();
    const joined = await iterator.next();
    expect(joined.value).toHaveLength(12); // queued chunks come out joined
    await waiting;
    expect(writable).toBe(true);
  });

  it('ends after close and fails with the given reason', async () => {
    const closed = new OutputQueue(10);
    closed.push(Buffer.from('a'));
    closed.close();
    const chunks: Buffer[] = [];
    for await (const chunk of closed) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe('a');

    const failed = new OutputQueue(10);
    failed.push(Buffer.from('lost'));
    const reason = new Error('boom');
    failed.fail(reason);
    await expect(failed[Symbol.asyncIterator]().next()).rejects.toBe(reason);
    await expect(failed.whenWritable()).rejects.toBe(reason);
  });

  it('tells the producer when the consumer leaves early', async () => {
    let exited = 0;
    const queue = new OutputQueue(1, () => {
      exited++;
    });
    queue.push(Buffer.from('xy'));
    const pending = queue.whenWritable();
    await queue[Symbol.asyncIterator]().return?.();
    expect(exited).toBe(1);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
