/**
 * Messages between the api process and the engine launcher (a small child process that
 * starts espeak-ng on its behalf). Control travels over the Node IPC channel; audio over
 * one Unix socket connection per engine, opened by the launcher to the api process and
 * starting with the engine id as a 4-byte big-endian integer.
 */

/** api process → launcher. */
export type LauncherCommand =
  | { readonly op: 'spawn'; readonly id: number; readonly bin: string; readonly args: string[] }
  | { readonly op: 'text'; readonly id: number; readonly text: string }
  | { readonly op: 'kill'; readonly id: number };

/** launcher → api process. */
export type LauncherEvent =
  | { readonly op: 'spawned'; readonly id: number; readonly pid: number }
  | {
      readonly op: 'exit';
      readonly id: number;
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly stderr: string;
      readonly spawnError?: { readonly code?: string | undefined; readonly message: string };
    };

/** Environment variable with the name of the api process's abstract Unix socket. */
export const LAUNCHER_SOCKET_ENV = 'AWP_ENGINE_LAUNCHER_SOCKET';
/** Bytes of the engine id that open each audio connection. */
export const ENGINE_ID_BYTES = 4;
/** Keep this much of an engine's stderr. */
export const MAX_STDERR_CHARS = 4096;
