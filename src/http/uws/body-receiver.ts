import type { HttpResponse as UwsResponse } from 'uWebSockets.js';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { UPLOAD_FILE_PREFIX } from '../upload-directory.ts';
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
  #sawLast = false;
  /** The whole body came with the headers: the socket stays paused until the answer. */
  #heldPaused = false;
  #onDropped: ((isLast: boolean) => void) | null = null;

  constructor(
    private readonly res: UwsResponse,
    private readonly signal: AbortSignal,
  ) {
    res.onData((chunk, isLast) => {
      if (isLast) this.#sawLast = true;
      if (this.#discarded) {
        this.#onDropped?.(isLast);
        return;
      }
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
   * Drops the body, lets the socket flow again and resolves once the rest of it arrived
   * (read and thrown away, never kept), the client went away, nothing came for `idleMs`
   * (a client that stopped sending), or `maxMs` passed: a refusal answered then closes a
   * connection with nothing unread, where closing over unread bytes would reset it.
   */
  drainAway(limits: { idleMs: number; maxMs: number }): Promise<void> {
    this.discard();
    if (this.signal.aborted) return Promise.resolve();
    this.res.resume();
    if (this.#sawLast) return Promise.resolve();
    return new Promise((resolve) => {
      let idle: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(total);
        clearTimeout(idle);
        this.#onDropped = null;
        this.signal.removeEventListener('abort', done);
        resolve();
      };
      const total = setTimeout(done, limits.maxMs);
      const rearm = () => {
        clearTimeout(idle);
        idle = setTimeout(done, limits.idleMs);
      };
      rearm();
      this.signal.addEventListener('abort', done, { once: true });
      this.#onDropped = (isLast) => (isLast ? done() : rearm());
    });
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
    const file = path.join(directory, `${UPLOAD_FILE_PREFIX}${randomUUID()}`);
    const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
    let failed = false;
    // uWS forbids touching a response once answered: only resume while the body flows.
    let receiving = true;
    return new Promise<string>((resolve, reject) => {
      const fail = (error: Error) => {
        if (failed) return;
        failed = true;
        receiving = false;
        this.discard();
        out.destroy();
        rm(file, { force: true }).then(
          () => reject(error),
          () => reject(error),
        );
      };
      out.on('error', fail);
      out.on('drain', () => {
        if (receiving && !this.signal.aborted) this.res.resume();
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
          receiving = false;
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
    // uWS arms its 10 s idle timeout on resume and disarms it only when the body's last
    // chunk arrives after that: resumed over a body that had all arrived, the connection
    // was closed 10 s later, before a slow answer. Such a socket is resumed as the answer
    // goes out (`resumeForAnswer`), so the next request on the connection is still read.
    if (pending.some((piece) => piece.isLast)) this.#heldPaused = true;
    else this.res.resume();
    for (const { chunk, isLast } of pending) sink(chunk, isLast);
  }

  /**
   * Lets a socket held paused over a body that arrived whole read again; called in the
   * answer's cork, before its first byte, while the response may still be touched.
   */
  resumeForAnswer(): void {
    if (!this.#heldPaused || this.signal.aborted) return;
    this.#heldPaused = false;
    this.res.resume();
  }
}
