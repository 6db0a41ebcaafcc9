import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Pids of espeak-ng processes whose parent is this test process (zombies included). */
export function childEngineProcesses(): number[] {
  return processes()
    .filter((p) => p.ppid === process.pid && p.comm === 'espeak-ng')
    .map((p) => p.pid);
}

/** Pids of long-lived engine helpers (`awp-espeak-engine`) whose parent is this test process. */
export function helperProcesses(): number[] {
  // The kernel keeps the first 15 characters of a program's name.
  return processes()
    .filter((p) => p.ppid === process.pid && p.comm === 'awp-espeak-engine'.slice(0, 15))
    .map((p) => p.pid);
}

/** Pids of the processes whose parent is `parent`. */
export function childProcesses(parent: number): number[] {
  return processes()
    .filter((p) => p.ppid === parent)
    .map((p) => p.pid);
}

/** Pids of espeak-ng processes started by a launcher child of this test process. */
export function launchedEngineProcesses(): number[] {
  const all = processes();
  const launchers = new Set(launcherProcesses());
  return all.filter((p) => launchers.has(p.ppid) && p.comm === 'espeak-ng').map((p) => p.pid);
}

/** Pids of engine launcher processes whose parent is this test process. */
export function launcherProcesses(): number[] {
  return processes()
    .filter((p) => p.ppid === process.pid)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes('launcher-main');
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}

function processes(): { pid: number; ppid: number; comm: string }[] {
  const found: { pid: number; ppid: number; comm: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    found.push({ pid: Number(entry), ppid, comm });
  }
  return found;
}

/** Whether a process with this pid exists (a zombie counts: it was not reaped yet). */
export function pidExists(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

/** A text that takes espeak-ng a while and yields minutes of audio. */
export function longText(sentences = 60): string {
  const base =
    'This is a long passage of text that keeps the speech engine busy for a while, ' +
    'so that audio has to stream out while it is still being synthesized.';
  return Array.from({ length: sentences }, (_, i) => `Sentence ${i + 1}. ${base}`).join(' ');
}
