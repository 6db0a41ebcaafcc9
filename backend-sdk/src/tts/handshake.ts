import WebSocket from 'ws';
import {
  AwpAbortError,
  AwpConnectionError,
  type AwpError,
  AwpTimeoutError,
  apiError,
  isApiErrorBody,
} from '../errors.ts';
import type { StreamContext } from '../internal/stream-context.ts';
import { parseRetryAfterMs } from '../retry.ts';

/** `wss://host/v1/tts/stream` (or another WebSocket `path`) for a base URL `https://host`. */
export function streamUrl(baseUrl: string, streamToken?: string, path = '/v1/tts/stream'): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (streamToken !== undefined) url.searchParams.set('token', streamToken);
  return url.toString();
}

/**
 * One WebSocket handshake (`/v1/tts/stream` unless `path` names another). A refused
 * upgrade becomes the typed error of the service's answer (`UnauthorizedError` for a
 * rejected credential, `RateLimitedError` with its `Retry-After`, ...); no answer is an
 * `AwpConnectionError`.
 */
export function connectOnce(
  context: StreamContext,
  streamToken: string | undefined,
  timeoutMs: number,
  signal: AbortSignal,
  path?: string,
): Promise<WebSocket> {
  return new Promise<WebSocket>((resolve, reject) => {
    const headers: Record<string, string> = { 'user-agent': context.userAgent };
    // A stream token travels in the query, so the permanent key is not sent alongside it.
    if (streamToken === undefined) headers.authorization = `Bearer ${context.apiKey}`;
    const socket = new WebSocket(streamUrl(context.baseUrl, streamToken, path), {
      headers,
      perMessageDeflate: false,
      handshakeTimeout: timeoutMs > 0 && Number.isFinite(timeoutMs) ? timeoutMs : undefined,
    });
    let settled = false;
    const fail = (error: AwpError) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.terminate();
      reject(error);
    };
    const onAbort = () =>
      fail(
        new AwpAbortError({
          code: 'aborted',
          detail: 'the stream was aborted',
          retryable: false,
          cause: signal.reason,
        }),
      );
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('open', () => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners();
      resolve(socket);
    });
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', () => {});
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        const header = response.headers['x-request-id'];
        const requestId = Array.isArray(header) ? header[0] : header;
        const retryAfterMs = parseRetryAfterMs(
          response.headers['retry-after'] as string | undefined,
        );
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        fail(
          isApiErrorBody(body)
            ? apiError(body, { status, retryAfterMs, ...(requestId ? { requestId } : {}) })
            : new AwpConnectionError({
                code: 'connection_error',
                detail: `the WebSocket upgrade was refused with HTTP ${status}`,
                status,
                requestId,
                retryable: status === 429 || status >= 500,
                retryAfterMs,
              }),
        );
      });
    });
    socket.once('error', (cause: Error) => {
      const timedOut = /timed out|timeout/i.test(cause.message);
      const Type = timedOut ? AwpTimeoutError : AwpConnectionError;
      fail(
        new Type({
          code: timedOut ? 'timeout' : 'connection_error',
          detail: `could not open the stream: ${cause.message}`,
          retryable: true,
          cause,
        }),
      );
    });
  });
}
