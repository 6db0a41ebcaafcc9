// The load the worker reports to LiveKit. LiveKit gives a job only to a worker whose load is
// below its target load, so a full worker is passed over for one with room.
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

/**
 * LiveKit's default `agents.target_load`. LiveKit offers a job only to a worker whose last
 * reported load is below it: a worker's claim on a job is the target minus its load, and a
 * claim of 0 gets no offer, so a worker reporting 0.75 is never offered a job.
 */
export const LIVEKIT_TARGET_LOAD = 0.7;

export interface LoadInput {
  activeJobs: number;
  maxSessions: number;
  /** The CPU busy share, 0 to 1. */
  cpu: number;
  /** The CPU busy share at which the worker is full (0 to 1). */
  threshold: number;
}

/**
 * The worker's fullness (the larger of its share of session slots in use and its CPU busy
 * share over `threshold`, at most 1) on LiveKit's scale: below `LIVEKIT_TARGET_LOAD`, where
 * LiveKit still offers it jobs, until every slot is taken or the CPU is `threshold` busy,
 * and exactly `LIVEKIT_TARGET_LOAD` then.
 */
export function workerLoad(input: LoadInput): number {
  const slots = Math.min(1, input.activeJobs / input.maxSessions);
  const cpu = Math.min(1, input.cpu / input.threshold);
  return LIVEKIT_TARGET_LOAD * Math.max(slots, cpu);
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
