import type { HttpResponse as UwsResponse } from 'uWebSockets.js';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { BodyTooLargeError } from './read-body.ts';

/** The client went away before its whole body arrived. */
export class BodyAbortedError extends Error {
  constructor() {
    super('The client closed the connection before its body arrived');
    this.name = 'BodyAbortedError';
  }
}

type Sink = (chunk: Buffer, isLast: boolean) => void;

/**
 * A request body held back until the route has decided to read it. Created in the
 * synchronous part of the uWS handler (uWS delivers data only to a callback registered
 * there), it pauses the socket at once, so the client's bytes wait in the kernels' socket
 * buffers, not in this process: only what arrived with the headers is kept meanwhile.
 * `toMemory` and `toFile` then resume the socket and collect the body, refusing more than
 * the limit as soon as it is crossed; `discard` drops what arrived.
 */
export class BodyReceiver {
  #pending: { chunk: Buffer; isLast: boolean }[] = [];
  #sink: Sink | null = null;
  #discarded = false;

  constructor(
    private readonly res: UwsResponse,
    private readonly signal: AbortSignal,
  ) {
    res.onData((chunk, isLast) => {
      if (this.#discarded) return;
      // uWS reuses the chunk's memory after this callback returns: copy it.
      const copy = Buffer.from(new Uint8Array(chunk));
      if (this.#sink) this.#sink(copy, isLast);
      else this.#pending.push({ chunk: copy, isLast });
    });
    res.pause();
  }

  /** Drops the body: what arrived is released and the rest is never read. */
  discard(): void {
    this.#discarded = true;
    this.#pending = [];
  }

  /**
   * Drops the body and lets the socket flow again, so the rest of it is read and thrown
   * away: the answer then reaches the client before the connection closes, where closing
   * over unread bytes would reset it (and the client could lose the answer). Call before
   * the response is ended, never after.
   */
  drainAway(): void {
    this.discard();
    if (!this.signal.aborted) this.res.resume();
  }

  /** The whole body in memory. */
  toMemory(limitBytes: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      let chunks: Buffer[] = [];
      let size = 0;
      this.#start(reject, (chunk, isLast) => {
        size += chunk.byteLength;
        if (size > limitBytes) {
          chunks = [];
          this.discard();
          reject(new BodyTooLargeError(limitBytes));
          return;
        }
        chunks.push(chunk);
        if (isLast) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      });
    });
  }

  /**
   * The whole body written to a new file in `directory` (readable by this user only),
   * whose path it resolves with. The socket is paused while the disk is behind, so no more
   * than a chunk or two is held in memory. The caller removes the file; a failed receive
   * removes it itself.
   */
  toFile(limitBytes: number, directory: string): Promise<string> {
    const file = path.join(directory, `awp-upload-${randomUUID()}`);
    const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
    let failed = false;
    return new Promise<string>((resolve, reject) => {
      const fail = (error: Error) => {
        if (failed) return;
        failed = true;
        this.discard();
        out.destroy();
        rm(file, { force: true }).then(
          () => reject(error),
          () => reject(error),
        );
      };
      out.on('error', fail);
      out.on('drain', () => {
        if (!this.signal.aborted && !failed) this.res.resume();
      });
      let size = 0;
      this.#start(fail, (chunk, isLast) => {
        if (failed) return;
        size += chunk.byteLength;
        if (size > limitBytes) {
          fail(new BodyTooLargeError(limitBytes));
          return;
        }
        const more = out.write(chunk);
        if (isLast) {
          out.end(() => {
            if (!failed) resolve(file);
          });
        } else if (!more && !this.signal.aborted) {
          this.res.pause();
        }
      });
    });
  }

  /** Replays what arrived with the headers into `sink`, then lets the socket flow. */
  #start(reject: (error: Error) => void, sink: Sink): void {
    if (this.signal.aborted) {
      reject(new BodyAbortedError());
      return;
    }
    this.signal.addEventListener('abort', () => reject(new BodyAbortedError()), { once: true });
    this.#sink = sink;
    const pending = this.#pending;
    this.#pending = [];
    for (const { chunk, isLast } of pending) sink(chunk, isLast);
    if (!this.#discarded && !pending.some((entry) => entry.isLast)) this.res.resume();
  }
}
