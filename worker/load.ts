// The load the worker reports to LiveKit. LiveKit gives a job only to a worker whose load is
// below its threshold, so a full worker is passed over for one with room.
import os from 'node:os';

/** The busy share (0 to 1) of the machine's CPUs since the previous sample. */
export class CpuSampler {
  #last = CpuSampler.#times();

  static #times(): { busy: number; total: number } {
    let busy = 0;
    let total = 0;
    for (const cpu of os.cpus()) {
      const { user, nice, sys, irq, idle } = cpu.times;
      busy += user + nice + sys + irq;
      total += user + nice + sys + irq + idle;
    }
    return { busy, total };
  }

  sample(): number {
    const now = CpuSampler.#times();
    const busy = now.busy - this.#last.busy;
    const total = now.total - this.#last.total;
    this.#last = now;
    return total > 0 ? Math.min(1, Math.max(0, busy / total)) : 0;
  }
}

export interface LoadInput {
  activeJobs: number;
  maxSessions: number;
  /** The CPU busy share, 0 to 1. */
  cpu: number;
  /** The load at which the worker is full (0 to 1). */
  threshold: number;
}

/**
 * The larger of the CPU busy share and the share of session slots in use, the latter scaled
 * so that it reaches `threshold` exactly when every slot is taken: the worker is full when
 * its slots are, or when the CPU is at least `threshold` busy.
 */
export function workerLoad(input: LoadInput): number {
  const slots =
    input.activeJobs >= input.maxSessions
      ? input.threshold
      : (input.threshold * input.activeJobs) / input.maxSessions;
  return Math.max(input.cpu, slots);
}

/**
 * The worker's own check of its session slots when LiveKit offers a job. The load it reports
 * reaches LiveKit every few seconds, so jobs offered in between would overfill it: a job
 * that does not fit is refused, and LiveKit offers it to another worker. A job counts from
 * its acceptance, before the framework lists it as running.
 */
export class JobAdmission {
  #starting = 0;

  constructor(private readonly maxSessions: number) {}

  /**
   * Whether one more job fits beside `running`: undefined when it does not; else the
   * callback that ends its starting (it runs now, failed to start, or never got assigned),
   * after which the framework counts it. Calling the callback again changes nothing.
   */
  admit(running: number): (() => void) | undefined {
    if (running + this.#starting >= this.maxSessions) return undefined;
    this.#starting += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#starting -= 1;
    };
  }
}
