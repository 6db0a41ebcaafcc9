import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import {
  AddressNotAllowedError,
  assertPublicAddress,
  literalAddress,
  publicOnlyLookup,
} from './address-guard.ts';

/** Response body read (and discarded) at most; the rest of a longer body is not read. */
const MAX_RESPONSE_BYTES = 4096;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  /** Sent as its UTF-8 bytes, unchanged. */
  body: string;
  /** The whole attempt: connecting, sending, the response's headers and the body read. */
  timeoutMs: number;
  /** Connect to loopback, private and other non-public addresses too. */
  allowPrivateNetworks: boolean;
}

/** How one attempt went: a status when a response came, an error text when it failed. */
export interface WebhookResponse {
  /** The response's status; null when none came. */
  status: number | null;
  /** Null for a 2xx response; otherwise short text for people (`HTTP 500`, `timed out ...`). */
  error: string | null;
  /** From the start of the attempt until its response's headers or its failure. */
  durationMs: number;
}

class AttemptTimeoutError extends Error {}

/**
 * POSTs one webhook body. Redirects are not followed (a 3xx is a failure), at most 4 KB of
 * the response body is read, and unless private networks are allowed the connection goes
 * only to public addresses: an IP in the URL is checked here, a host name's addresses by
 * the socket's lookup. Never throws.
 */
export function postWebhook(request: WebhookRequest): Promise<WebhookResponse> {
  const startedMs = performance.now();
  const elapsed = () => Math.round(performance.now() - startedMs);
  let url: URL;
  try {
    url = new URL(request.url);
    const literal = literalAddress(url);
    if (literal !== undefined && !request.allowPrivateNetworks) assertPublicAddress(literal);
  } catch (error) {
    return Promise.resolve({ status: null, error: errorText(error, request), durationMs: 0 });
  }
  const body = Buffer.from(request.body, 'utf8');
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<WebhookResponse, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const req = transport.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(body.byteLength) },
      // A connection of its own, closed after the attempt.
      agent: false,
      ...(request.allowPrivateNetworks ? {} : { lookup: publicOnlyLookup }),
    });
    const timer = setTimeout(
      () => req.destroy(new AttemptTimeoutError('attempt timed out')),
      request.timeoutMs,
    );
    req.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      settle({
        status,
        error: ok
          ? null
          : status >= 300 && status < 400
            ? `HTTP ${status} (redirects are not followed)`
            : `HTTP ${status}`,
      });
      discardBody(response, () => {
        clearTimeout(timer);
        req.destroy();
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      settle({ status: null, error: errorText(error, request) });
    });
    req.end(body);
  });
}

/** Reads up to {@link MAX_RESPONSE_BYTES} of the body, then calls `done` once. */
function discardBody(response: IncomingMessage, done: () => void): void {
  let bytes = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };
  response.on('data', (chunk: Buffer) => {
    bytes += chunk.byteLength;
    if (bytes >= MAX_RESPONSE_BYTES) finish();
  });
  response.on('end', finish);
  response.on('error', finish);
  response.on('close', finish);
}

function errorText(error: unknown, request: WebhookRequest): string {
  if (error instanceof AttemptTimeoutError) return `timed out after ${request.timeoutMs} ms`;
  if (error instanceof AddressNotAllowedError) return error.message;
  const { code, syscall, message } = error as {
    code?: unknown;
    syscall?: unknown;
    message?: unknown;
  };
  if (typeof code === 'string' && typeof syscall === 'string') return `${syscall} ${code}`;
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
