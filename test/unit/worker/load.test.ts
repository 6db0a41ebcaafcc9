import { describe, expect, it } from 'vitest';
import { CpuSampler, JobAdmission, LIVEKIT_TARGET_LOAD, workerLoad } from '../../../worker/load.ts';

describe('the load the worker reports', () => {
  // LiveKit offers a job only to a worker whose reported load is below its target load
  // (0.7 by default); a worker of 8 slots reporting 6/8 was never offered a 7th job.
  it('stays below LiveKit’s target load until every session slot is taken, then reaches it', () => {
    expect(LIVEKIT_TARGET_LOAD).toBe(0.7);
    const loads = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((activeJobs) =>
      workerLoad({ activeJobs, maxSessions: 8, cpu: 0, threshold: 1 }),
    );
    expect(loads.map((load) => load < LIVEKIT_TARGET_LOAD)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(loads[6]).toBeCloseTo((0.7 * 6) / 8, 10);
    expect(loads[8]).toBe(0.7);
    expect(workerLoad({ activeJobs: 9, maxSessions: 8, cpu: 0, threshold: 1 })).toBe(0.7);
  });

  it('is the CPU busy share over the threshold, on the same scale, when that is larger', () => {
    expect(workerLoad({ activeJobs: 1, maxSessions: 4, cpu: 0.4, threshold: 0.8 })).toBeCloseTo(
      0.35,
      10,
    );
    expect(workerLoad({ activeJobs: 1, maxSessions: 4, cpu: 0.8, threshold: 0.8 })).toBe(0.7);
    expect(workerLoad({ activeJobs: 1, maxSessions: 4, cpu: 0.9, threshold: 0.8 })).toBe(0.7);
    expect(workerLoad({ activeJobs: 3, maxSessions: 4, cpu: 0.1, threshold: 1 })).toBeCloseTo(
      0.525,
      10,
    );
  });

  it('samples a CPU busy share between 0 and 1', () => {
    const sampler = new CpuSampler();
    const end = Date.now() + 50;
    while (Date.now() < end) {
      // keep one CPU busy
    }
    const share = sampler.sample();
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThanOrEqual(1);
  });
});

describe('the worker’s admission of offered jobs', () => {
  it('admits jobs while running and starting ones leave a slot free', () => {
    const admission = new JobAdmission(2);
    const first = admission.admit(0);
    // The first is still starting (not listed as running): one slot left.
    const second = admission.admit(0);
    expect([first, second].map((started) => typeof started)).toEqual(['function', 'function']);
    expect(admission.admit(0)).toBeUndefined();
    first?.();
    first?.();
    second?.();
    expect(admission.admit(2)).toBeUndefined();
    expect(admission.admit(1)).toBeTypeOf('function');
    expect(admission.admit(1)).toBeUndefined();
  });
});
