import { describe, expect, it } from 'vitest';
import { CpuSampler, JobAdmission, workerLoad } from '../../../worker/load.ts';

describe('the load the worker reports', () => {
  it('reaches the threshold exactly when every session slot is taken', () => {
    const loads = [0, 1, 2, 3].map((activeJobs) =>
      workerLoad({ activeJobs, maxSessions: 3, cpu: 0, threshold: 0.7 }),
    );
    expect(loads.map((load) => load >= 0.7)).toEqual([false, false, false, true]);
    expect(loads[1]).toBeCloseTo(0.7 / 3, 10);
    expect(workerLoad({ activeJobs: 4, maxSessions: 4, cpu: 0, threshold: 1 })).toBe(1);
  });

  it('is the CPU busy share when that is larger', () => {
    expect(workerLoad({ activeJobs: 1, maxSessions: 4, cpu: 0.8, threshold: 0.75 })).toBe(0.8);
    expect(workerLoad({ activeJobs: 3, maxSessions: 4, cpu: 0.1, threshold: 1 })).toBe(0.75);
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
