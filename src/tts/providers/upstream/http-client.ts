import { type Dispatcher, Pool } from 'undici';
import { resolveTimeouts, type UpstreamTimeouts } from './timeouts.ts';

/** Why an upstream exchange failed below HTTP (no usable status). */
export type UpstreamTransportFailure =
  /** The TCP connection did not open within `connectTimeoutMs`. */
  | 'connect_timeout'
  /** No status and headers within `firstByteTimeoutMs`. */
  | 'first_byte_timeout'
  /** The body went silent for `idleTimeoutMs`. */
  | 'idle_timeout'
  /** The connection could not be opened (refused, unknown host, unreachable). */
  | 'connection_failed'
  /** The connection broke before the response began. */
  | 'connection_reset'
  /** The connection broke (or closed) before the response body was complete. */
  | 'truncated';

/** A transport failure of {@link UpstreamHttpClient}; adapters map it to `unavailable`. */
export class UpstreamTransportError extends Error {
  readonly kind: UpstreamTransportFailure;

  constructor(kind: UpstreamTransportFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamTransportError';
    this.kind = kind;
  }
}

/** One HTTP request to the vendor. */
export interface UpstreamRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Path and query appended to the base URL's path, starting with `/`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer | undefined;
}

/** Settings of an {@link UpstreamHttpClient}. */
export interface UpstreamHttpClientOptions {
  /** Vendor origin, optionally with a path prefix (`https://api.elevenlabs.io`). */
  readonly baseUrl: string;
  readonly timeouts?: Partial<UpstreamTimeouts> | undefined;
  /** Most connections open to the vendor at once. Default 32. */
  readonly maxSockets?: number | undefined;
  /** A kept-alive connection idle this long is closed. Default 15 s. */
  readonly idleSocketTimeoutMs?: number | undefined;
  /** Response headers that carry the vendor's request id, first present wins. */
  readonly requestIdHeaders?: readonly string[] | undefined;
}

type ResponseHeaders = Dispatcher.ResponseData['headers'];

const CONNECTION_FAILED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/**
 * HTTP/1.1 client for one vendor origin: an undici `Pool` of keep-alive connections, so
 * sequential synthesis requests reuse one TCP (and TLS) connection instead of paying a
 * handshake each. undici enforces the timeouts (connect, headers, silence between body
 * chunks: see {@link UpstreamTimeouts}), cancels on `signal` (the connection is destroyed,
 * so the vendor sees it close) and only reuses a connection whose response was read to
 * its end. This class names undici's failures as {@link UpstreamTransportError}s and adds:
 *
 * - A request that fails on a reused connection before any response byte (the vendor
 *   closed the idle connection as we wrote) is sent once more on a new connection.
 * - The vendor's request id from the configured response headers.
 *
 * @example
 * const client = new UpstreamHttpClient({ baseUrl: 'https://api.fish.audio' });
 * const response = await client.send({ method: 'POST', path: '/v1/tts', headers, body }, signal);
 * try { for await (const bytes of response.body()) sink(bytes); } finally { response.close(); }
 */
export class UpstreamHttpClient {
  readonly timeouts: UpstreamTimeouts;
  readonly #base: URL;
  readonly #pool: Pool;
  readonly #requestIdHeaders: readonly string[];

  constructor(options: UpstreamHttpClientOptions) {
    this.#base = new URL(options.baseUrl);
    if (this.#base.protocol !== 'https:' && this.#base.protocol !== 'http:') {
      throw new RangeError(`upstream base URL must be http or https, got ${this.#base.protocol}`);
    }
    this.timeouts = resolveTimeouts(options.timeouts);
    const idleSocketTimeoutMs = options.idleSocketTimeoutMs ?? 15_000;
    this.#pool = new Pool(this.#base.origin, {
      connections: options.maxSockets ?? 32,
      connect: { timeout: this.timeouts.connectTimeoutMs },
      headersTimeout: this.timeouts.firstByteTimeoutMs,
      bodyTimeout: this.timeouts.idleTimeoutMs,
      keepAliveTimeout: idleSocketTimeoutMs,
      keepAliveMaxTimeout: idleSocketTimeoutMs,
    });
    this.#requestIdHeaders = (options.requestIdHeaders ?? []).map((name) => name.toLowerCase());
  }

  /**
   * Sends `request` and resolves once the status and headers arrived. The caller must
   * read the body to its end or call {@link UpstreamResponse.close}.
   *
   * @throws `signal.reason` when `signal` aborts; {@link UpstreamTransportError} otherwise.
   */
  async send(request: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse> {
    signal.throwIfAborted();
    let data: Dispatcher.ResponseData;
    try {
      data = await this.#request(request, signal);
    } catch (error) {
      if (!isStaleConnection(error, signal)) throw this.#beforeResponse(error, signal);
      try {
        data = await this.#request(request, signal);
      } catch (retryError) {
        throw this.#beforeResponse(retryError, signal);
      }
    }
    return new UpstreamResponse(data, this.#requestId(data.headers), signal, this.timeouts);
  }

  /** Closes every connection, idle or not. Requests in flight fail. */
  close(): void {
    this.#pool.destroy().catch(() => {});
  }

  #request(request: UpstreamRequest, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const prefix = this.#base.pathname.replace(/\/+$/, '');
    return this.#pool.request({
      method: request.method,
      path: `${prefix}${request.path}`,
      headers: request.headers,
      body: request.body ?? null,
      signal,
    });
  }

  /** The error the caller sees for a request that failed before its response began. */
  #beforeResponse(error: unknown, signal: AbortSignal): unknown {
    if (signal.aborted) return signal.reason;
    const code = errorCode(error);
    if (code === 'UND_ERR_CONNECT_TIMEOUT') {
      return new UpstreamTransportError(
        'connect_timeout',
        `connection not open within ${this.timeouts.connectTimeoutMs} ms`,
        { cause: error },
      );
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      return new UpstreamTransportError(
        'first_byte_timeout',
        `no response within ${this.timeouts.firstByteTimeoutMs} ms`,
        { cause: error },
      );
    }
    const detail = code ?? (error as Error).message;
    if (code !== undefined && CONNECTION_FAILED_CODES.has(code)) {
      return new UpstreamTransportError('connection_failed', `cannot connect (${detail})`, {
        cause: error,
      });
    }
    return new UpstreamTransportError('connection_reset', `connection failed (${detail})`, {
      cause: error,
    });
  }

  #requestId(headers: ResponseHeaders): string | undefined {
    for (const name of this.#requestIdHeaders) {
      const value = headers[name];
      const first = Array.isArray(value) ? value[0] : value;
      if (first !== undefined && first !== '') return first.slice(0, 200);
    }
    return undefined;
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether `error` is a kept-alive connection the vendor closed as we wrote: the socket
 * broke before this response began, and it had already carried an earlier response.
 */
function isStaleConnection(error: unknown, signal: AbortSignal): boolean {
  if (signal.aborted) return false;
  const code = errorCode(error);
  if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET' && code !== 'EPIPE') return false;
  const socket = (error as { socket?: { bytesRead?: number } | null }).socket;
  return (socket?.bytesRead ?? 0) > 0;
}

/** A response whose status and headers arrived; the body is read on demand. */
export class UpstreamResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  /** The vendor's request id from the configured response headers, if any. */
  readonly requestId: string | undefined;
  readonly #body: Dispatcher.ResponseData['body'];
  readonly #signal: AbortSignal;
  readonly #idleTimeoutMs: number;
  #complete = false;

  constructor(
    data: Dispatcher.ResponseData,
    requestId: string | undefined,
    signal: AbortSignal,
    timeouts: UpstreamTimeouts,
  ) {
    this.status = data.statusCode;
    this.headers = data.headers;
    this.requestId = requestId;
    this.#body = data.body;
    this.#signal = signal;
    this.#idleTimeoutMs = timeouts.idleTimeoutMs;
    // Errors surface through body(); this keeps an unread response from crashing.
    this.#body.on('error', () => {});
  }

  /**
   * The body as it arrives. Throws `signal.reason` on abort and an
   * {@link UpstreamTransportError} on idle timeout, reset or a body cut short.
   * Stopping early closes the connection.
   */
  async *body(): AsyncGenerator<Buffer, void, undefined> {
    try {
      for await (const bytes of this.#body) yield bytes as Buffer;
    } catch (error) {
      throw this.#duringBody(error);
    } finally {
      if (!this.#body.readableEnded) this.#body.destroy();
    }
    this.#signal.throwIfAborted();
    this.#complete = true;
    // undici hands a finished connection back to the pool one event-loop turn after the
    // response ended; waiting that turn lets the caller's next request reuse it.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * The body as UTF-8 text, at most `maxBytes` kept (the rest is read and dropped, so the
   * connection stays reusable). For error responses.
   */
  async text(maxBytes = 16_384): Promise<string> {
    const kept: Buffer[] = [];
    let size = 0;
    for await (const bytes of this.body()) {
      if (size < maxBytes) kept.push(bytes.subarray(0, maxBytes - size));
      size += bytes.byteLength;
    }
    return Buffer.concat(kept).toString('utf8');
  }

  /**
   * Ends the exchange: a fully read response leaves its connection to the keep-alive
   * pool, anything else destroys the connection. Safe to call more than once.
   */
  close(): void {
    if (!this.#complete && !this.#body.destroyed) this.#body.destroy();
  }

  #duringBody(error: unknown): unknown {
    if (this.#signal.aborted) return this.#signal.reason;
    const code = errorCode(error);
    if (code === 'UND_ERR_BODY_TIMEOUT') {
      return new UpstreamTransportError(
        'idle_timeout',
        `response body silent for ${this.#idleTimeoutMs} ms`,
        { cause: error },
      );
    }
    const detail = code ?? (error as Error).message;
    return new UpstreamTransportError('truncated', `response body cut short (${detail})`, {
      cause: error,
    });
  }
}
