// Runs examples/backend as `npm run example:backend` does (tsx over the sources), on an
// ephemeral port, and stops it: shared by the example's integration and browser tests.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ROOT } from '../../helpers/server.ts';
import { waitFor } from '../../helpers/wait.ts';

export interface ExampleServer {
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM, then waits for the exit. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the example against the api at `apiUrl`; resolves once it logged `listening`.
 *
 * @example
 * ```ts
 * const example = await startExample({ AWP_API_URL: api.url, AWP_API_KEY: key, AWP_AGENT_ID: id });
 * ```
 */
export async function startExample(env: Record<string, string>): Promise<ExampleServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/backend/server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      EXAMPLE_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const url = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the example exited: ${output}`);
        return /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(output)?.[1];
      },
      // tsx transpiles and esbuild bundles the page at start: seconds on a busy machine.
      { what: 'the example backend to listen', timeoutMs: 90_000 },
    );
    return { url, output: () => output, stop };
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}\n${output}`);
  }
}
