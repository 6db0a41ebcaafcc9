import http, {
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import https from 'node:https';
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

const CONNECTION_FAILED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/**
 * HTTP/1.1 client for one vendor origin over a keep-alive agent (node:http / node:https),
 * so sequential synthesis requests reuse one TCP (and TLS) connection instead of paying a
 * handshake each.
 *
 * - Timeouts: connect, first byte (status and headers) and idle between body chunks, see
 *   {@link UpstreamTimeouts}. Each failure is an {@link UpstreamTransportError}.
 * - Cancellation: when `signal` aborts, the request and its connection are destroyed at
 *   once (the vendor sees the socket close) and the pending call rejects with
 *   `signal.reason`. A connection is only reused after a response was read to its end.
 * - A request that fails on a reused connection before any response byte (the vendor
 *   closed the idle connection as we wrote) is sent once more on a new connection.
 *
 * @example
 * const client = new UpstreamHttpClient({ baseUrl: 'https://api.fish.audio' });
 * const response = await client.send({ method: 'POST', path: '/v1/tts', headers, body }, signal);
 * try { for await (const bytes of response.body()) sink(bytes); } finally { response.close(); }
 */
export class UpstreamHttpClient {
  readonly timeouts: UpstreamTimeouts;
  readonly #base: URL;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;
  readonly #requestIdHeaders: readonly string[];

  constructor(options: UpstreamHttpClientOptions) {
    this.#base = new URL(options.baseUrl);
    const secure = this.#base.protocol === 'https:';
    if (!secure && this.#base.protocol !== 'http:') {
      throw new RangeError(`upstream base URL must be http or https, got ${this.#base.protocol}`);
    }
    this.timeouts = resolveTimeouts(options.timeouts);
    const maxSockets = options.maxSockets ?? 32;
    const agentOptions = {
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      timeout: options.idleSocketTimeoutMs ?? 15_000,
      // Reuse the most recently used connection first: it is the least likely to have
      // been closed by the vendor's idle timeout.
      scheduling: 'lifo' as const,
    };
    this.#agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.#request = secure ? https.request : http.request;
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
    try {
      return await this.#attempt(request, signal);
    } catch (error) {
      if (!(error instanceof StaleConnectionError)) throw error;
      return this.#attempt(request, signal, false);
    }
  }

  /** Closes every connection, idle or not. Requests in flight fail. */
  close(): void {
    this.#agent.destroy();
  }

  #url(path: string): URL {
    const prefix = this.#base.pathname.replace(/\/+$/, '');
    return new URL(`${prefix}${path}`, this.#base);
  }

  #attempt(
    request: UpstreamRequest,
    signal: AbortSignal,
    retryStale = true,
  ): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = String(request.body.byteLength);
      const req = this.#request(this.#url(request.path), {
        method: request.method,
        headers,
        agent: this.#agent,
      });
      const exchange = new Exchange(req, signal);
      let settled = false;

      exchange.startTimer(
        this.timeouts.firstByteTimeoutMs,
        () =>
          new UpstreamTransportError(
            'first_byte_timeout',
            `no response within ${this.timeouts.firstByteTimeoutMs} ms`,
          ),
        'firstByte',
      );
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        exchange.startTimer(
          this.timeouts.connectTimeoutMs,
          () =>
            new UpstreamTransportError(
              'connect_timeout',
              `connection not open within ${this.timeouts.connectTimeoutMs} ms`,
            ),
          'connect',
        );
        socket.once('connect', () => exchange.clearTimer('connect'));
      });
      req.on('error', (error) => {
        if (settled) return;
        settled = true;
        exchange.release();
        if (retryStale && req.reusedSocket && exchange.isStaleConnectionError(error)) {
          reject(new StaleConnectionError());
          return;
        }
        reject(exchange.translate(error));
      });
      req.on('response', (res) => {
        exchange.clearTimer('firstByte');
        exchange.clearTimer('connect');
        if (settled) {
          res.destroy();
          return;
        }
        settled = true;
        exchange.res = res;
        resolve(new UpstreamResponse(exchange, res, this.#requestId(res.headers), this.timeouts));
      });
      req.end(request.body);
    });
  }

  #requestId(headers: IncomingHttpHeaders): string | undefined {
    for (const name of this.#requestIdHeaders) {
      const value = headers[name];
      const first = Array.isArray(value) ? value[0] : value;
      if (first !== undefined && first !== '') return first.slice(0, 200);
    }
    return undefined;
  }
}

/** A response whose status and headers arrived; the body is read on demand. */
export class UpstreamResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The vendor's request id from the configured response headers, if any. */
  readonly requestId: string | undefined;
  readonly #exchange: Exchange;
  readonly #res: IncomingMessage;
  readonly #idleTimeoutMs: number;

  constructor(
    exchange: Exchange,
    res: IncomingMessage,
    requestId: string | undefined,
    timeouts: UpstreamTimeouts,
  ) {
    this.#exchange = exchange;
    this.#res = res;
    this.#idleTimeoutMs = timeouts.idleTimeoutMs;
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    this.requestId = requestId;
    // Errors surface through body(); this keeps an unread response from crashing.
    res.on('error', () => {});
  }

  /**
   * The body as it arrives. Throws `signal.reason` on abort and an
   * {@link UpstreamTransportError} on idle timeout, reset or a body cut short.
   * Stopping early closes the connection.
   */
  async *body(): AsyncGenerator<Buffer, void, undefined> {
    const exchange = this.#exchange;
    const idle = () =>
      exchange.startTimer(
        this.#idleTimeoutMs,
        () =>
          new UpstreamTransportError(
            'idle_timeout',
            `response body silent for ${this.#idleTimeoutMs} ms`,
          ),
        'idle',
      );
    idle();
    try {
      for await (const bytes of this.#res) {
        exchange.clearTimer('idle');
        yield bytes as Buffer;
        idle();
      }
    } catch (error) {
      throw exchange.translate(error);
    } finally {
      exchange.clearTimer('idle');
    }
    exchange.signal.throwIfAborted();
    if (!this.#res.complete) {
      throw exchange.translate(
        new UpstreamTransportError('truncated', 'connection closed before the body ended'),
      );
    }
    exchange.release();
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
    if (!this.#res.complete) this.#exchange.destroy();
    this.#exchange.release();
  }
}

type TimerName = 'connect' | 'firstByte' | 'idle';

/** Timers, abort wiring and the first failure cause of one request/response pair. */
class Exchange {
  readonly req: ClientRequest;
  readonly signal: AbortSignal;
  res: IncomingMessage | undefined;
  #cause: UpstreamTransportError | undefined;
  readonly #timers = new Map<TimerName, NodeJS.Timeout>();
  readonly #onAbort: () => void;
  #released = false;

  constructor(req: ClientRequest, signal: AbortSignal) {
    this.req = req;
    this.signal = signal;
    this.#onAbort = () => this.destroy();
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  startTimer(ms: number, cause: () => UpstreamTransportError, name: TimerName): void {
    this.clearTimer(name);
    const timer = setTimeout(() => {
      this.#cause ??= cause();
      this.destroy();
    }, ms);
    this.#timers.set(name, timer);
  }

  clearTimer(name: TimerName): void {
    const timer = this.#timers.get(name);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#timers.delete(name);
  }

  /** Destroys the request and its connection. */
  destroy(): void {
    this.res?.destroy();
    this.req.destroy();
  }

  /** Stops timers and the abort listener; the exchange needs no more watching. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.signal.removeEventListener('abort', this.#onAbort);
  }

  /** Whether `error` is a reused connection the vendor closed before we wrote. */
  isStaleConnectionError(error: unknown): boolean {
    if (this.signal.aborted || this.#cause !== undefined || this.res !== undefined) return false;
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ECONNRESET' || code === 'EPIPE';
  }

  /** The error the caller should see for a low-level `error`. */
  translate(error: unknown): unknown {
    this.release();
    if (this.signal.aborted) return this.signal.reason;
    if (this.#cause !== undefined) return this.#cause;
    if (error instanceof UpstreamTransportError) return error;
    const code = (error as NodeJS.ErrnoException).code;
    const detail = code ?? (error as Error).message;
    if (this.res !== undefined) {
      return new UpstreamTransportError('truncated', `response body cut short (${detail})`, {
        cause: error,
      });
    }
    if (code !== undefined && CONNECTION_FAILED_CODES.has(code)) {
      return new UpstreamTransportError('connection_failed', `cannot connect (${detail})`, {
        cause: error,
      });
    }
    return new UpstreamTransportError('connection_reset', `connection failed (${detail})`, {
      cause: error,
    });
  }
}

/** Internal marker: retry once on a new connection. */
class StaleConnectionError extends Error {}
