import { describe, expect, it } from 'vitest';
import { failureForStatus } from '../../../../src/tts/providers/upstream/index.ts';

describe('failureForStatus', () => {
  it.each([
    [401, 'auth_rejected'],
    [402, 'auth_rejected'],
    [403, 'auth_rejected'],
    [429, 'overloaded'],
    [503, 'overloaded'],
    [408, 'unavailable'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [504, 'unavailable'],
    [599, 'unavailable'],
    [400, 'rejected'],
    [404, 'rejected'],
    [413, 'rejected'],
    [422, 'rejected'],
    [302, 'unavailable'],
    [101, 'unavailable'],
  ] as const)('HTTP %i is %s', (status, failure) => {
    expect(failureForStatus(status)).toBe(failure);
  });
});
