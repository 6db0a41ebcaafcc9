import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settleWithin } from '../../../src/system/deadline.ts';

const resolvesAfter = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const failingAfter = (ms: number, message: string) =>
  new Promise<never>((_, reject) => setTimeout(() => reject(new Error(message)), ms));

describe('settleWithin', () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => {
    process.off('unhandledRejection', record);
  });

  it('gives the work’s value when it settles in time', async () => {
    expect(await settleWithin(resolvesAfter(5, 'done'), 200, () => 'late')).toBe('done');
  });

  it('gives the work’s rejection when it fails in time', async () => {
    await expect(settleWithin(failingAfter(5, 'broken'), 200, () => 'late')).rejects.toThrow(
      'broken',
    );
  });

  it('gives what late() returns at the deadline', async () => {
    expect(await settleWithin(resolvesAfter(500, 'done'), 20, () => false)).toBe(false);
  });

  it('throws what late() throws at the deadline', async () => {
    await expect(
      settleWithin(resolvesAfter(500, 'done'), 20, () => {
        throw new Error('timed out');
      }),
    ).rejects.toThrow('timed out');
  });

  it('drops a rejection of the work that comes after the deadline', async () => {
    expect(await settleWithin(failingAfter(40, 'too late'), 10, () => 'late')).toBe('late');
    await resolvesAfter(80, null);
    expect(unhandled).toEqual([]);
  });
});
