// The one request function every REST method goes through: auth header, per-attempt
// timeout, the caller's AbortSignal, typed errors and retries.
import {
  AwpAbortError,
  AwpConnectionError,
  AwpError,
  AwpInvalidResponseError,
  AwpTimeoutError,
  apiError,
  isApiErrorBody,
} from '../errors.ts';
import type { RequestOptions } from '../options.ts';
import { nextRetryDelayMs, parseRetryAfterMs, type RetryPolicy } from '../retry.ts';
import { abortableSleep, attemptSignal } from './signals.ts';

/** Settings shared by every call of one client. */
export interface HttpContext {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
  headers: Record<string, string>;
  fetch: typeof fetch;
  userAgent: string;
}

/** One REST call as the resources describe it. */
export interface HttpCall {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path under the base URL, already encoded (`/v1/agents/${encodeURIComponent(id)}`). */
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  /** A JSON body. */
  json?: unknown;
  /** A raw body with its content type (card PNG files). */
  raw?: { bytes: Uint8Array; contentType: string } | undefined;
  /**
   * `json` parses the answer, `bytes` keeps it, `none` expects no body (204), `stream`
   * hands back the unread body of a 2xx answer (server-sent events).
   */
  expect: 'json' | 'bytes' | 'none' | 'stream';
  /**
   * Safe to send again after a network failure or timeout, when the service may have seen
   * the first attempt. Errors the service marks `retryable` are retried either way.
   */
  idempotent: boolean;
  /** Overrides the client's bearer credential (Agent session tokens). */
  bearer?: string | undefined;
}

/** A successful answer. */
export interface HttpResult<T> {
  status: number;
  headers: Headers;
  /** `X-Request-Id` of the answer. */
  requestId: string | undefined;
  body: T;
}

function urlOf(context: HttpContext, call: HttpCall): string {
  // Appended, not resolved, so a base URL with a path prefix (`https://host/awp`) keeps it.
  const url = new URL(`${context.baseUrl.replace(/\/+$/, '')}${call.path}`);
  for (const [name, value] of Object.entries(call.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

async function readError(response: Response, bytes: Uint8Array): Promise<AwpError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    parsed = undefined;
  }
  if (isApiErrorBody(parsed)) {
    return apiError(parsed, {
      status: response.status,
      retryAfterMs,
      ...(requestId ? { requestId } : {}),
    });
  }
  // Not the service's error object (a proxy or load balancer answered): judge by status.
  const retryable = response.status === 429 || response.status >= 500;
  return new AwpInvalidResponseError({
    code: 'invalid_response',
    detail: `HTTP ${response.status} without the service's error object`,
    status: response.status,
    requestId,
    retryable,
    retryAfterMs,
  });
}

/** One attempt: the answer, or the typed error it amounts to. */
async function attempt<T>(
  context: HttpContext,
  call: HttpCall,
  signal: AbortSignal,
  timeoutMs: number,
  headers: Record<string, string>,
): Promise<HttpResult<T>> {
  const scope = attemptSignal(signal, timeoutMs);
  let streaming = false;
  try {
    const init: RequestInit = { method: call.method, headers, signal: scope.signal };
    if (call.json !== undefined) init.body = JSON.stringify(call.json);
    // A copy typed on a plain ArrayBuffer, which every fetch typing accepts as a body.
    else if (call.raw) init.body = new Uint8Array(call.raw.bytes);
    const response = await context.fetch(urlOf(context, call), init);
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (call.expect === 'stream' && response.ok && response.body) {
      streaming = true;
      return {
        status: response.status,
        headers: response.headers,
        requestId,
        body: response.body as T,
      };
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!response.ok) throw await readError(response, bytes);
    let body: unknown;
    if (call.expect === 'json') {
      try {
        body = JSON.parse(new TextDecoder().decode(bytes));
      } catch (cause) {
        throw new AwpInvalidResponseError({
          code: 'invalid_response',
          detail: 'the answer is not JSON',
          status: response.status,
          requestId,
          retryable: false,
          cause,
        });
      }
    } else if (call.expect === 'bytes') {
      body = bytes;
    }
    return { status: response.status, headers: response.headers, requestId, body: body as T };
  } catch (error) {
    if (signal.aborted) {
      throw new AwpAbortError({
        code: 'aborted',
        detail: 'the call was aborted',
        retryable: false,
        cause: signal.reason,
      });
    }
    if (scope.timedOut()) {
      throw new AwpTimeoutError({
        code: 'timeout',
        detail: `no answer within ${timeoutMs} ms`,
        retryable: true,
        cause: error,
      });
    }
    if (error instanceof AwpError) throw error;
    throw new AwpConnectionError({
      code: 'connection_error',
      detail: `the request failed: ${(error as Error)?.message ?? String(error)}`,
      retryable: true,
      cause: error,
    });
  } finally {
    if (streaming) scope.stopTimer();
    else scope.dispose();
  }
}

/**
 * Sends `call` with retries: errors the service marks `retryable` are retried for every
 * call, network failures and timeouts only for idempotent ones (the service may have acted
 * on the first attempt). Waits the `Retry-After` the service asked for, else a jittered
 * exponential backoff.
 */
export async function send<T>(
  context: HttpContext,
  call: HttpCall,
  options: RequestOptions = {},
): Promise<HttpResult<T>> {
  const signal = options.signal ?? new AbortController().signal;
  const timeoutMs = options.timeoutMs ?? context.timeoutMs;
  const policy: RetryPolicy = {
    ...context.retry,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  };
  const headers: Record<string, string> = {
    'user-agent': context.userAgent,
    accept:
      call.expect === 'json'
        ? 'application/json'
        : call.expect === 'stream'
          ? 'text/event-stream'
          : '*/*',
    ...context.headers,
    ...options.headers,
    authorization: `Bearer ${call.bearer ?? context.apiKey}`,
  };
  if (call.json !== undefined) headers['content-type'] = 'application/json';
  else if (call.raw) headers['content-type'] = call.raw.contentType;
  for (let failed = 0; ; ) {
    try {
      return await attempt<T>(context, call, signal, timeoutMs, headers);
    } catch (error) {
      failed += 1;
      const typed = error as AwpError;
      const mayRetry =
        !(typed instanceof AwpAbortError) &&
        typed.retryable &&
        (call.idempotent || !(typed instanceof AwpConnectionError));
      const delayMs = mayRetry ? nextRetryDelayMs(failed, typed.retryAfterMs, policy) : undefined;
      if (delayMs === undefined) throw typed;
      try {
        await abortableSleep(delayMs, signal);
      } catch {
        throw new AwpAbortError({
          code: 'aborted',
          detail: 'the call was aborted while waiting to retry',
          retryable: false,
          cause: typed,
        });
      }
    }
  }
}
