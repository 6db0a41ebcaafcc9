import { readdirSync, readFileSync } from 'node:fs';

/** The `q`-quantile (0..1) of `values` by nearest rank; NaN for an empty list. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Milliseconds since an arbitrary origin, sub-millisecond precision. */
export function nowMs(): number {
  return performance.now();
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * CPU seconds used by a process tree: the process and every live descendant (the engine
 * launcher, running engines), each with its reaped children (utime + stime + cutime +
 * cstime from /proc/PID/stat). Subprocesses that exited are counted through their parent.
 */
export function processTreeCpuSeconds(pid: number | 'self' = 'self'): number {
  const root = pid === 'self' ? process.pid : pid;
  const stats = new Map<number, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may contain spaces.
      stats.set(Number(entry), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
    } catch {
      // exited while we looked
    }
  }
  let ticks = 0;
  const pending = [root];
  while (pending.length > 0) {
    const current = pending.pop() as number;
    const fields = stats.get(current);
    if (!fields) continue;
    // fields[0] is field 3 (state); utime is field 14 -> index 11.
    ticks += [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    for (const [child, childFields] of stats) {
      if (Number(childFields[1]) === current) pending.push(child);
    }
  }
  return ticks / TICKS_PER_SECOND;
}

/** Runs `task` `total` times with at most `concurrency` in flight; resolves with the wall time. */
export async function runConcurrently(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = nowMs();
  const lanes = Array.from({ length: Math.min(concurrency, total) }, async () => {
    while (next < total) {
      const index = next++;
      await task(index);
    }
  });
  await Promise.all(lanes);
  return nowMs() - started;
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
