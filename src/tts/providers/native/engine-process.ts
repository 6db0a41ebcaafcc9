import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Engine, EngineExit } from './engine.ts';

export type { EngineExit } from './engine.ts';

/** Keep this much of stderr for error messages. */
const MAX_STDERR_BYTES = 4096;

/**
 * One espeak-ng subprocess reading its text from stdin (`--stdin`) and writing WAV to
 * stdout. It may be spawned ahead of time (warm): espeak-ng loads the voice, then blocks
 * reading stdin until the text arrives and stdin closes. Never run through a shell.
 */
export class EngineProcess implements Engine {
  readonly key: string;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #exited: Promise<EngineExit>;
  #exit: EngineExit | undefined;
  #stderr = '';
  #textSent = false;

  constructor(binaryPath: string, args: readonly string[], key: string) {
    this.key = key;
    this.#child = spawn(binaryPath, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
    });
    const child = this.#child;
    // A write to a process that already died must not become an unhandled 'error'.
    child.stdin.on('error', () => {});
    child.stderr.on('data', (bytes: Buffer) => {
      if (this.#stderr.length < MAX_STDERR_BYTES) {
        this.#stderr += bytes.toString('utf8').slice(0, MAX_STDERR_BYTES - this.#stderr.length);
      }
    });
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exit ??= { code, signal };
        resolve(this.#exit);
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        // 'error' without a pid means the spawn failed and no 'exit' follows.
        if (child.pid === undefined) {
          this.#exit ??= { code: null, signal: null, spawnError: error };
          resolve(this.#exit);
        }
      });
    });
  }

  /** Process id, undefined when the spawn failed. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Audio stream (WAV bytes). */
  get stdout(): Readable {
    return this.#child.stdout;
  }

  /** Resolves once the process has ended (and been reaped), or failed to start. */
  get exited(): Promise<EngineExit> {
    return this.#exited;
  }

  /** True until the process ends or is killed. */
  get alive(): boolean {
    return this.#exit === undefined && this.#child.exitCode === null && !this.#child.killed;
  }

  /** Whether text was already written; a process takes exactly one text. */
  get used(): boolean {
    return this.#textSent;
  }

  /** What the process wrote to stderr so far (truncated). */
  get stderr(): string {
    return this.#stderr.trim();
  }

  /** Writes the whole text and closes stdin, which starts synthesis. */
  sendText(text: string): void {
    this.#textSent = true;
    this.#child.stdin.end(text, 'utf8');
  }

  /** Kills the process at once (SIGKILL). Safe to call more than once. */
  kill(): void {
    if (this.#exit === undefined && this.#child.pid !== undefined) {
      this.#child.kill('SIGKILL');
    }
  }

  /**
   * Whether this process may keep the Node event loop alive. Idle warm processes are
   * unreferenced so an otherwise finished program can exit (the child then reads EOF,
   * speaks nothing and exits).
   */
  setReferenced(referenced: boolean): void {
    const child = this.#child;
    const handles = [child.stdin, child.stdout, child.stderr] as unknown[];
    if (referenced) child.ref();
    else child.unref();
    for (const handle of handles) {
      const socket = handle as { ref?: () => void; unref?: () => void };
      if (referenced) socket.ref?.();
      else socket.unref?.();
    }
  }
}
