import type { HttpResponse as UwsResponse } from 'uWebSockets.js';
import { STATUS_CODES } from 'node:http';
import type { Logger } from '../../observability/logger.ts';
import type { HttpResponse } from '../types.ts';
import { sendStream } from './stream-body.ts';

const EMPTY = Buffer.alloc(0);
const CHUNKED_RESPONSE_BYTES = 64 * 1024;

/** Whether a uWS response was finished (or aborted), and the signal its abort fires. */
export interface ResponseState {
  done: boolean;
  aborted: AbortController;
}

/**
 * Writes a handler's answer, corked: status, `x-request-id`, headers, then the body.
 * JSON and text bodies get a default content type; a stream is piped with backpressure;
 * a large buffer goes out with `tryEnd`/`onWritable` as the socket drains. `onDone` runs
 * once the last byte was handed to uWS (or the stream ended or failed).
 */
export function writeResponse(
  res: UwsResponse,
  state: ResponseState,
  response: HttpResponse,
  requestId: string,
  logger: Logger,
  onDone: () => void,
): void {
  const headers: Record<string, string> = { ...response.headers };
  let payload: Buffer;
  if (response.body === undefined) {
    payload = EMPTY;
  } else if (Buffer.isBuffer(response.body)) {
    payload = response.body;
  } else if (typeof response.body === 'string') {
    payload = Buffer.from(response.body, 'utf8');
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else {
    payload = Buffer.from(JSON.stringify(response.body), 'utf8');
    headers['content-type'] ??= 'application/json';
  }
  const closeConnection = headers.connection === 'close';
  delete headers.connection;

  res.cork(() => {
    res.writeStatus(`${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd());
    res.writeHeader('x-request-id', requestId);
    for (const [name, value] of Object.entries(headers)) res.writeHeader(name, value);
    if (response.stream) {
      const { stream } = response;
      sendStream(res, stream, state.aborted.signal)
        .catch((error: unknown) =>
          logger.error({ err: error, request_id: requestId }, 'stream failed'),
        )
        .finally(() => onDone());
      return;
    }
    if (payload.byteLength <= CHUNKED_RESPONSE_BYTES || closeConnection) {
      res.end(payload, closeConnection);
      onDone();
      return;
    }
    // Large bodies go out as the socket drains, so a slow client never makes uWS copy
    // the whole body into its own buffer.
    const total = payload.byteLength;
    const [, done] = res.tryEnd(payload, total);
    if (done) {
      onDone();
      return;
    }
    res.onWritable((offset) => {
      if (state.done) return true;
      const [ok, finished] = res.tryEnd(payload.subarray(offset), total);
      if (finished) onDone();
      return ok;
    });
  });
}
