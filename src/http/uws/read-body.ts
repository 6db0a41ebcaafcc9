import type { HttpResponse as UwsResponse } from 'uWebSockets.js';

export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`Request body exceeds ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads the whole request body, refusing more than `limitBytes` as soon as the limit is
 * crossed. Must be called in the synchronous part of the uWS handler: uWS delivers data
 * only to a callback registered there.
 */
export function readBody(res: UwsResponse, limitBytes: number): Promise<Buffer> {
  let chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  let resolve!: (body: Buffer) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<Buffer>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  res.onData((chunk, isLast) => {
    if (settled) return;
    size += chunk.byteLength;
    if (size > limitBytes) {
      settled = true;
      chunks = [];
      reject(new BodyTooLargeError(limitBytes));
      return;
    }
    // uWS reuses the chunk's memory after this callback returns: copy it.
    chunks.push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) {
      settled = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    }
  });
  return promise;
}
