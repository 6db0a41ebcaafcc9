import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import type { TestDatabase } from './database.ts';
import { BUDGET_MS } from './wait.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServerOptions {
  database: TestDatabase;
  /** Extra Node arguments for the api process (for example `--cpu-prof`, bench/PROFILING.md). */
  nodeArgs?: readonly string[];
  /** Extra environment variables for the service. */
  env?: Record<string, string>;
}

export interface RunningServer {
  /** Base URL of the production environment listener. */
  url: string;
  /** Base URL of the development environment listener. */
  devUrl: string;
  /** Base URL of the internal metrics listener (`/metrics`). */
  metricsUrl: string;
  process: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Structured log lines written so far. */
  logs(): Record<string, unknown>[];
  /**
   * Sends SIGTERM and resolves with the exit code. An api still running after `timeoutMs`
   * (default {@link STOP_TIMEOUT_MS}) is killed (SIGKILL) and the call rejects: a shutdown
   * that hangs is a defect the test must report, not hide.
   */
  stop(timeoutMs?: number): Promise<number | null>;
  /** SIGKILL: a crash. */
  kill(): Promise<void>;
  env: Record<string, string>;
}

/**
 * How long {@link RunningServer.stop} waits for the api to exit by itself. Tests run it with
 * SHUTDOWN_GRACE_MS 5000: the drain plus closing everything fits with a wide margin on a
 * loaded machine, and a shutdown that hangs never ends.
 */
export const STOP_TIMEOUT_MS = 30_000;

/** Environment shared by every process of one test (servers and the operator tool). */
export function serviceEnv(database: TestDatabase, extra: Record<string, string> = {}) {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DEV_PORT: '0',
    METRICS_PORT: '0',
    JOBS_PROBE_PORT: '0',
    DATA_DIR: database.dataDir,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_MS: '5000',
    // Each api with neural voices loads a ~550 MB model copy: only tests of them opt in.
    NATIVE_NEURAL_VOICES: 'false',
    // Most tests start sessions with no agent worker running and look only at the api's
    // side: the start hands out the room without waiting for a worker. Tests of the wait
    // (and of workers) set it.
    AGENT_SESSION_WORKER_WAIT_MS: '0',
    ...extra,
  };
  if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
  return env;
}

/**
 * How tests start the api: the compiled release build (dist/, built once by
 * test/global-setup.ts), so tests exercise what production runs and a busy machine does
 * not pay a TypeScript transpile per server start.
 */
export const API_COMMAND = ['--enable-source-maps', 'dist/src/main.js'];

/** Starts the real api process on ephemeral ports and waits until both listeners are up. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const env = serviceEnv(options.database, options.env);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...API_COMMAND], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ports: Record<string, number> = {};
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      for (const line of output.split('\n')) {
        if (!line.includes('"listening"')) continue;
        try {
          const entry = JSON.parse(line) as { environment: string; port: number };
          ports[entry.environment] = entry.port;
        } catch {
          // partial line
        }
      }
      if (ports.production && ports.development) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code) =>
      reject(new Error(`server exited with ${code} before listening:\n${output}`)),
    );
  });
  // Only a start that hangs reaches this; a busy machine needs many seconds to start (tsx).
  const timeout = setTimeout(() => child.kill('SIGKILL'), BUDGET_MS.server);
  try {
    await ready;
  } finally {
    clearTimeout(timeout);
  }
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return {
    url: `http://127.0.0.1:${ports.production}`,
    devUrl: `http://127.0.0.1:${ports.development}`,
    metricsUrl: `http://127.0.0.1:${ports.metrics}`,
    process: child,
    env,
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
    stop: async (timeoutMs = STOP_TIMEOUT_MS) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      let killed = false;
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      if (killed) {
        // The api logs each shutdown step at debug (LOG_LEVEL=debug names the hung one).
        const tail = output.split('\n').slice(-15).join('\n');
        throw new Error(
          `the api did not exit within ${timeoutMs} ms of SIGTERM and was killed; last output:\n${tail}`,
        );
      }
      return code;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    },
  };
}
