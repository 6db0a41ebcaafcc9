import { openAsBlob } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { HttpRequest } from './types.ts';

/**
 * The request's body bytes: read from its file on routes that spool their body
 * (`spoolBody`), so the upload is held whole only while the handler uses it, never while
 * the client is still sending.
 */
export async function bodyBytes(request: HttpRequest): Promise<Buffer> {
  return request.bodyFile === undefined ? request.body : readFile(request.bodyFile);
}

/** The request's body as a Blob: backed by its file on spooling routes, read as consumed. */
export async function bodyBlob(request: HttpRequest): Promise<Blob> {
  if (request.bodyFile !== undefined) return openAsBlob(request.bodyFile);
  const { body } = request;
  return new Blob([new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength)]);
}
