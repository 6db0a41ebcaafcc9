// Starts the compiled agent worker (dist/worker/main.js) for tests and waits until it has
// registered with LiveKit.

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { ROOT } from './server.ts';

/** A free TCP port on 127.0.0.1 (probed, then released). */
/** Ports handed out below the kernel's ephemeral range (32768-60999 by default). */
const PORT_RANGE = { from: 20_000, to: 32_000 };

/**
 * A TCP port free on every address right now, for a process the test starts later. It is
 * taken below the ephemeral range: a port the kernel assigned (`listen(0)`) can be handed
 * again to any outgoing connection before the process binds it, which on a busy suite made
 * a server fail with "Cannot listen".
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '0.0.0.0', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the worker and its job processes printed so far. */
  output(): string;
  /** Structured log lines printed so far (job processes included). */
  logs(): Record<string, unknown>[];
  /** SIGKILL to the whole process group: a crash, job processes included. */
  kill(): Promise<void>;
}

/** Starts the worker with `env` (see serviceEnv) and resolves once it registered. */
export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  // Its own process group: killing it also kills the job processes it forked (a crash).
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/worker/main.js'], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker did not register:\n${output}`)),
      30_000,
    );
    const check = () => {
      if (output.includes('worker registered')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    logs: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-(child.pid as number), 'SIGKILL');
      await exited;
    },
  };
}
