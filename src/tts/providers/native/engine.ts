import type { Readable } from 'node:stream';

/** How one espeak-ng process ended. */
export interface EngineExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when the process could not be started (missing binary, no permission). */
  readonly spawnError?: NodeJS.ErrnoException;
}

/**
 * One espeak-ng process that reads its text from stdin and writes WAV to stdout, started
 * either by this process ({@link EngineProcess}) or by the engine launcher
 * ({@link LaunchedEngine}). It takes exactly one text.
 */
export interface Engine {
  /** Voice and rate it was started for. */
  readonly key: string;
  /** Process id; undefined when the start failed or is not confirmed yet. */
  readonly pid: number | undefined;
  /** Audio stream (WAV bytes); ends when the process's output ends. */
  readonly stdout: Readable;
  /** Resolves once the process has ended (and been reaped), or failed to start. */
  readonly exited: Promise<EngineExit>;
  /** True until the process ends or is killed. */
  readonly alive: boolean;
  /** Whether text was already written. */
  readonly used: boolean;
  /** What the process wrote to stderr (truncated); complete once `exited` resolved. */
  readonly stderr: string;
  /** Writes the whole text and closes stdin, which starts synthesis. */
  sendText(text: string): void;
  /** Kills the process at once (SIGKILL). Safe to call more than once. */
  kill(): void;
  /** Whether this engine may keep the Node event loop alive (idle spares may not). */
  setReferenced(referenced: boolean): void;
}

/** Starts an engine: `binaryPath` with `args`, serving requests for `key`. */
export type EngineStarter = (binaryPath: string, args: readonly string[], key: string) => Engine;
