import type { Environment } from '../app/config.ts';

/**
 * How long after its arrival a request that waits on something outside this process (a
 * worker taking a session) is answered at the latest, its error object included: a client
 * or a proxy in front of the api can set its own timeout by it.
 */
export const WAITING_ANSWER_LIMIT_MS = 10_000;

/**
 * The latest moment a handler may go on waiting for `request` and still answer, keeping
 * `reserveMs` for what it does after the wait.
 */
export function answerDeadline(
  request: Pick<HttpRequest, 'receivedAt'>,
  reserveMs: number,
): number {
  return request.receivedAt + WAITING_ANSWER_LIMIT_MS - reserveMs;
}

/** A parsed HTTP request as route handlers see it; no uWS object leaks past the adapter. */
export interface HttpRequest {
  /** Upper-case method. */
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** Header names are lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Path parameters by name (`/v1/agents/:agentId` gives `agentId`). */
  readonly params: Readonly<Record<string, string>>;
  /** Raw body, already size-limited. Empty when the request has none or it was spooled. */
  readonly body: Buffer;
  /**
   * On routes that spool their body to disk (`spoolBody`): the temporary file holding it,
   * readable until the handler's promise settles, then removed. Absent without a body.
   */
  readonly bodyFile?: string;
  /** Server-assigned id of this request (UUIDv7), echoed in `X-Request-Id`. */
  readonly requestId: string;
  /**
   * When the request arrived (ms since the epoch). A handler that waits on something else
   * answers within `WAITING_ANSWER_LIMIT_MS` of it.
   */
  readonly receivedAt: number;
  /** Environment addressed by the request (host map, else the listener's). */
  readonly environment: Environment;
  readonly remoteAddress: string;
  /** Aborted when the client disconnects before the response is sent. */
  readonly signal: AbortSignal;
}

/** What a handler returns; objects are sent as JSON. */
export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string | object;
  /**
   * A body sent piece by piece as it is produced (chunked transfer encoding), instead of
   * `body`. When the client goes away the request's `signal` aborts and the iterator is
   * returned; a throw from it cuts the connection (the status was already sent).
   */
  stream?: AsyncIterable<Buffer | string>;
}

export type Handler = (request: HttpRequest) => Promise<HttpResponse>;
