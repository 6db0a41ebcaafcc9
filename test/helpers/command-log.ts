import { accessSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Which of some external commands a process ran, in the order it started them. */
export interface CommandLog {
  /** A PATH for the process: the wrappers first, then this process's own PATH. */
  readonly path: string;
  /** The name of every command run so far, in start order. */
  runs(): string[];
}

function resolveCommand(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  throw new Error(`${name} is not on the PATH`);
}

/**
 * Writes, in `dir`, a wrapper for each of `names` that notes its name in a log and then
 * runs the real command with the same arguments and input: a process given
 * {@link CommandLog.path} as its PATH runs the real tools, and the log says which it ran
 * (what a time bound cannot say on a loaded machine).
 */
export function logCommands(dir: string, names: readonly string[]): CommandLog {
  mkdirSync(dir, { recursive: true });
  const log = path.join(dir, 'runs.log');
  writeFileSync(log, '');
  for (const name of names) {
    const script = `#!/bin/sh\necho ${name} >> '${log}'\nexec '${resolveCommand(name)}' "$@"\n`;
    writeFileSync(path.join(dir, name), script, { mode: 0o755 });
  }
  return {
    path: [dir, process.env.PATH ?? ''].join(path.delimiter),
    runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}
