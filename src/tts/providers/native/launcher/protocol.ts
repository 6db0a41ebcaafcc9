/**
 * Messages between the api process and the engine launcher (a small child process that
 * starts espeak-ng on its behalf). Control travels over the Node IPC channel; audio over
 * one Unix socket connection per engine, opened by the launcher to the api process and
 * starting with the engine id as a 4-byte big-endian integer and the engine's nonce.
 *
 * The socket lives in the abstract namespace, which any process on the host may connect to
 * (its name is listed in /proc/net/unix). The nonce, 16 random bytes per engine sent only
 * over the private IPC channel, is what proves a connection comes from the launcher: a
 * connection without it could otherwise feed its own audio into someone's request.
 */

/** api process → launcher. */
export type LauncherCommand =
  | {
      readonly op: 'spawn';
      readonly id: number;
      /** Hex of the {@link ENGINE_NONCE_BYTES} the audio connection must present. */
      readonly nonce: string;
      readonly bin: string;
      readonly args: string[];
    }
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
/** Bytes of the per-engine nonce that follow the id. */
export const ENGINE_NONCE_BYTES = 16;
/** Keep this much of an engine's stderr. */
export const MAX_STDERR_CHARS = 4096;
