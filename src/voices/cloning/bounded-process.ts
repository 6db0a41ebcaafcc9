import { spawn } from 'node:child_process';

/** How a bounded run ended. */
export type BoundedOutcome = 'exited' | 'output_limit' | 'timed_out';

export interface BoundedRunOptions {
  /** Bytes of stdout accepted; past them the process is killed. */
  maxOutputBytes: number;
  /** Wall-clock limit; past it the process is killed. */
  timeoutMs: number;
  /** Sees each piece of stdout as it arrives; `collect: false` keeps none of it. */
  onOutput?: (chunk: Buffer) => void;
  /** Keep stdout and resolve it whole (default true). */
  collect?: boolean;
}

export interface BoundedRunResult {
  outcome: BoundedOutcome;
  /** Exit code when it exited by itself. */
  code: number | null;
  /** What it wrote, when collected (empty otherwise). */
  stdout: Buffer;
}

/**
 * Runs a decoder (ffmpeg, ffprobe) on untrusted `input` with hard bounds: stdout past
 * `maxOutputBytes` or a run past `timeoutMs` kills it (SIGKILL) at once, so a small file that
 * decodes to hours of audio costs at most the bound in memory and time. Never rejects for
 * what the process does; rejects only when it cannot be started.
 */
export function runBounded(
  command: string,
  args: readonly string[],
  input: Buffer,
  options: BoundedRunOptions,
): Promise<BoundedRunResult> {
  const collect = options.collect ?? true;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let outcome: BoundedOutcome = 'exited';
    const stop = (why: BoundedOutcome) => {
      if (outcome !== 'exited') return;
      outcome = why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timed_out'), options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (outcome !== 'exited') return;
      size += chunk.byteLength;
      if (size > options.maxOutputBytes) {
        stop('output_limit');
        return;
      }
      options.onOutput?.(chunk);
      if (collect) chunks.push(chunk);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // The decoder may stop reading early (ffprobe, a kill); a closed pipe is not an error here.
    child.stdin.on('error', () => {});
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        outcome,
        code: outcome === 'exited' ? code : null,
        stdout: Buffer.concat(chunks),
      });
    });
    child.stdin.end(input);
  });
}
