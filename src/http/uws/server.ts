import type {
  TemplatedApp,
  HttpRequest as UwsRequest,
  HttpResponse as UwsResponse,
  us_listen_socket,
} from 'uWebSockets.js';
import { tmpdir } from 'node:os';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../../app/config.ts';
import { ApiError } from '../../errors.ts';
import type { Logger } from '../../observability/logger.ts';
import type { Metrics } from '../../observability/metrics.ts';
import { requestContext } from '../../observability/request-context.ts';
import { BodyBudget } from '../body-budget.ts';
import { corsHeaders, preflightHeaders } from '../cors.ts';
import type { HttpMethod, RouteCors } from '../route.ts';
import type { Handler, HttpRequest, HttpResponse } from '../types.ts';
import type { WebSocketRoute } from '../websocket.ts';
import { BodyIntake } from './body-intake.ts';
import { BodyReceiver } from './body-receiver.ts';
import { errorResponse } from './error-response.ts';
import { uws } from './native.ts';
import { paramNames, patternRegex } from './route-pattern.ts';
import { mountWebSocket } from './websocket.ts';
import { type ResponseState, writeResponse } from './write-response.ts';

/** A handler bound to a method and a uWS path pattern (`/v1/agents/:agentId`). */
export interface MountedRoute {
  method: HttpMethod;
  pattern: string;
  bodyLimitBytes: number;
  handler: Handler;
  /**
   * Runs on the headers before the body is awaited (authentication): a refusal is answered
   * while the body may still be arriving, and the connection is then closed. The request
   * it sees has an empty body; the handler then gets the same object with the body.
   */
  beforeBody?: (request: HttpRequest) => Promise<void>;
  /** Cross-origin policy; omitted: no CORS headers, `OPTIONS` answers 405. */
  cors?: RouteCors;
  /**
   * Write the body to a temporary file (`request.bodyFile`) instead of memory: uploads of
   * megabytes (voice recordings, character cards).
   */
  spoolBody?: boolean;
}

export interface Listener {
  host: string;
  port: number;
  environment: Environment;
}

export interface UwsServerOptions {
  routes: MountedRoute[];
  /** Host names (lower case, no port) whose Host header selects an environment. */
  hostEnvironments: ReadonlyMap<string, Environment>;
  logger: Logger;
  metrics: Metrics;
  /** WebSocket routes; an open connection counts as a request in flight. */
  webSockets?: WebSocketRoute[];
  /** Origins `cors: 'allowlist'` routes answer (STREAM_ALLOWED_ORIGINS). Default: none. */
  allowsOrigin?: (origin: string) => boolean;
  /** Bytes of request bodies read at once (BODY_BUDGET_BYTES). Default: no budget. */
  bodyBudget?: BodyBudget;
  /** Where spooled bodies are written. Default: the system's temporary folder. */
  spoolDirectory?: string;
}

/** How `serve` handles one request: the route's settings, or those of a built-in answer. */
interface Served {
  label: string;
  /** null: the body is never read (unmatched requests, preflights). */
  bodyLimitBytes: number | null;
  handler: Handler;
  cors?: RouteCors;
  beforeBody?: (request: HttpRequest) => Promise<void>;
  spoolBody?: boolean;
}

const EMPTY = Buffer.alloc(0);
/**
 * How a refused request's body is read and dropped before its answer goes out and the
 * connection closes: until it ends, until the client pauses this long, or at most this
 * long (a client still sending then may see a reset instead of the answer), as web
 * servers' lingering close does. The pause allows a sender on a busy machine to stall for
 * seconds between writes (nothing is kept while the body is dropped), and stays well under
 * uWS's own 10 s idle timeout, which would close the connection with no answer at all.
 */
const REFUSED_BODY_DRAIN = { idleMs: 5_000, maxMs: 30_000 };

/**
 * The only module that touches uWS request and response objects. It owns the uWS rules:
 * `onAborted` before any await, headers copied before async work, every late write
 * corked, large bodies streamed with `tryEnd`/`onWritable`.
 */
export class UwsHttpServer {
  private readonly apps: { app: TemplatedApp; socket: us_listen_socket | null }[] = [];
  private readonly matchers: { method: HttpMethod; regex: RegExp }[];
  private inFlightCount = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly bodyBudget: BodyBudget;
  private readonly spoolDirectory: string;

  constructor(private readonly options: UwsServerOptions) {
    this.bodyBudget = options.bodyBudget ?? new BodyBudget(Number.POSITIVE_INFINITY);
    this.spoolDirectory = options.spoolDirectory ?? tmpdir();
    this.matchers = options.routes.map((route) => ({
      method: route.method,
      regex: patternRegex(route.pattern),
    }));
  }

  /** Method and path pattern of every HTTP route this server mounts. */
  get mountedRoutes(): { method: HttpMethod; pattern: string }[] {
    return this.options.routes.map((route) => ({ method: route.method, pattern: route.pattern }));
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Starts one uWS app per listener; resolves with the ports actually bound. */
  async listen(listeners: Listener[]): Promise<(Listener & { port: number })[]> {
    const bound: (Listener & { port: number })[] = [];
    for (const listener of listeners) {
      const app = uws.App();
      for (const route of this.options.webSockets ?? []) {
        mountWebSocket({
          app,
          route,
          listenerEnvironment: listener.environment,
          hostEnvironments: this.options.hostEnvironments,
          logger: this.options.logger,
          onOpen: () => {
            this.inFlightCount++;
          },
          onClose: () => this.requestDone(),
        });
      }
      for (const route of this.options.routes) this.mount(app, route, listener.environment);
      this.mountPreflights(app, listener.environment);
      app.any('/*', (res, req) => this.fallback(res, req, listener.environment));
      const socket = await new Promise<us_listen_socket | false>((resolve) =>
        app.listen(listener.host, listener.port, (s) => resolve(s)),
      );
      if (!socket) {
        this.stopListening();
        throw new Error(`Cannot listen on ${listener.host}:${listener.port}`);
      }
      this.apps.push({ app, socket });
      bound.push({ ...listener, port: uws.us_socket_local_port(socket) });
    }
    return bound;
  }

  /** Stops accepting connections; requests in flight go on. */
  stopListening(): void {
    for (const entry of this.apps) {
      if (entry.socket) uws.us_listen_socket_close(entry.socket);
      entry.socket = null;
    }
  }

  /** Resolves true once no request is in flight, or false after `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.inFlightCount === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Closes every connection at once. */
  close(): void {
    this.stopListening();
    // `close` exists on the native App but is missing from the package's type declarations.
    for (const entry of this.apps) (entry.app as TemplatedApp & { close(): void }).close();
    this.apps.length = 0;
  }

  private mount(app: TemplatedApp, route: MountedRoute, environment: Environment): void {
    const names = paramNames(route.pattern);
    const register = {
      GET: app.get,
      POST: app.post,
      PUT: app.put,
      PATCH: app.patch,
      DELETE: app.del,
    }[route.method].bind(app);
    register(route.pattern, (res, req) => {
      const params: Record<string, string> = {};
      try {
        names.forEach((name, index) => {
          params[name] = decodeURIComponent(req.getParameter(index) ?? '');
        });
      } catch {
        this.serve(
          res,
          req,
          environment,
          {},
          {
            label: route.pattern,
            bodyLimitBytes: null,
            handler: async () => {
              throw new ApiError('invalid_request', 'The path has a malformed percent-escape.');
            },
          },
        );
        return;
      }
      this.serve(res, req, environment, params, { ...route, label: route.pattern });
    });
  }

  /** `OPTIONS` on each path with a CORS route: the preflight answer, or 403 for the origin. */
  private mountPreflights(app: TemplatedApp, environment: Environment): void {
    const byPattern = new Map<string, { cors: RouteCors; methods: HttpMethod[] }>();
    for (const route of this.options.routes) {
      if (!route.cors) continue;
      const entry = byPattern.get(route.pattern) ?? { cors: route.cors, methods: [] };
      entry.methods.push(route.method);
      byPattern.set(route.pattern, entry);
    }
    const allowsOrigin = this.options.allowsOrigin ?? (() => false);
    for (const [pattern, { cors, methods }] of byPattern) {
      app.options(pattern, (res, req) => {
        const origin = req.getHeader('origin') || undefined;
        this.serve(
          res,
          req,
          environment,
          {},
          {
            label: pattern,
            bodyLimitBytes: null,
            handler: async () => {
              const headers = preflightHeaders(cors, origin, methods, allowsOrigin);
              if (!headers) throw new ApiError('forbidden', 'This Origin may not call this route.');
              return { status: 204, headers };
            },
          },
        );
      });
    }
  }

  private fallback(res: UwsResponse, req: UwsRequest, environment: Environment): void {
    const path = req.getUrl();
    const allowed = this.matchers.filter((m) => m.regex.test(path)).map((m) => m.method);
    // Nothing of the body is read: the answer does not depend on it, and a request with
    // an unknown method or path is answered at once (the connection then closes).
    this.serve(
      res,
      req,
      environment,
      {},
      {
        label: '(unmatched)',
        bodyLimitBytes: null,
        handler: async () => {
          if (allowed.length > 0) {
            throw Object.assign(
              new ApiError('method_not_allowed', `Use ${allowed.join(' or ')} on this path.`),
              { allow: allowed.join(', ') },
            );
          }
          throw new ApiError('not_found', 'No such route.');
        },
      },
    );
  }

  private serve(
    res: UwsResponse,
    req: UwsRequest,
    listenerEnvironment: Environment,
    params: Record<string, string>,
    served: Served,
  ): void {
    const { label: routeLabel, bodyLimitBytes, handler, cors, beforeBody } = served;
    const startedAt = performance.now();
    const state: ResponseState = { done: false, aborted: new AbortController() };
    this.inFlightCount++;
    this.options.metrics.inFlight.inc();
    res.onAborted(() => {
      if (state.done) return;
      state.aborted.abort();
      this.finish(state, method, routeLabel, 499, startedAt, requestId);
    });

    // Everything read from `req` must be copied now: it is invalid after this call returns.
    const requestId = uuidv7();
    const receivedAt = Date.now();
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const headers: Record<string, string> = {};
    req.forEach((key, value) => {
      headers[key] = value;
    });
    const path = req.getUrl();
    const query = new URLSearchParams(req.getQuery() ?? '');
    const hostname = (headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const environment = this.options.hostEnvironments.get(hostname) ?? listenerEnvironment;
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
    const crossOrigin = cors
      ? corsHeaders(cors, headers.origin, this.options.allowsOrigin ?? (() => false))
      : undefined;

    const declared = {
      contentLength: headers['content-length'],
      chunked: /chunked/i.test(headers['transfer-encoding'] ?? ''),
    };
    const hasBody =
      declared.chunked || (declared.contentLength !== undefined && declared.contentLength !== '0');
    // The socket is paused here: no body byte is read before the route decided to read it.
    const intake =
      hasBody && bodyLimitBytes !== null
        ? new BodyIntake(new BodyReceiver(res, state.aborted.signal), bodyLimitBytes, declared, {
            budget: this.bodyBudget,
            spoolDirectory: this.spoolDirectory,
            logger: this.options.logger,
          })
        : null;
    const run = async (): Promise<HttpResponse> => {
      const request: { -readonly [K in keyof HttpRequest]: HttpRequest[K] } = {
        method,
        path,
        query,
        headers,
        params,
        body: EMPTY,
        requestId,
        receivedAt,
        environment,
        remoteAddress,
        signal: state.aborted.signal,
      };
      await beforeBody?.(request);
      await intake?.into(request, served.spoolBody === true);
      return handler(request);
    };
    const label = { requestId, method, routeLabel, startedAt, body: intake };
    this.respond(res, state, label, crossOrigin, () =>
      requestContext
        .run({ request_id: requestId, method, route: routeLabel }, run)
        .catch(async (error: unknown) => {
          const response = errorResponse(error, requestId, method, routeLabel, this.options.logger);
          if (hasBody && !intake?.read) {
            // A body left unread would be taken for the next request on this connection.
            response.headers = { ...response.headers, connection: 'close' };
            // Its rest is read and dropped before the answer goes out: closing over unread
            // bytes resets the connection, and the client could lose the answer.
            await intake?.drainAway(REFUSED_BODY_DRAIN);
          }
          return response;
        })
        .finally(() => intake?.release(requestId)),
    );
  }

  /** Writes the answer `answer` resolves to, unless the client went away first. */
  private respond(
    res: UwsResponse,
    state: ResponseState,
    label: {
      requestId: string;
      method: string;
      routeLabel: string;
      startedAt: number;
      /** The request's body, when it has one: its socket may be held paused until now. */
      body: BodyIntake | null;
    },
    crossOrigin: Record<string, string> | undefined,
    answer: () => Promise<HttpResponse>,
  ): void {
    const { requestId, method, routeLabel, startedAt } = label;
    answer()
      .then((response) => {
        if (state.done) return;
        if (crossOrigin) response.headers = { ...crossOrigin, ...response.headers };
        res.cork(() => label.body?.beforeAnswer());
        writeResponse(res, state, response, requestId, this.options.logger, () =>
          this.finish(state, method, routeLabel, response.status, startedAt, requestId),
        );
      })
      .catch((error: unknown) => {
        this.options.logger.error({ err: error, request_id: requestId }, 'writing response failed');
        if (!state.done) {
          res.cork(() => res.close());
          this.finish(state, method, routeLabel, 500, startedAt, requestId);
        }
      });
  }

  private finish(
    state: ResponseState,
    method: string,
    routeLabel: string,
    status: number,
    startedAt: number,
    requestId: string,
  ): void {
    if (state.done) return;
    state.done = true;
    const seconds = (performance.now() - startedAt) / 1000;
    const { metrics, logger } = this.options;
    metrics.inFlight.dec();
    metrics.httpRequests.inc({ method, route: routeLabel, status: String(status) });
    metrics.httpDuration.observe({ method, route: routeLabel }, seconds);
    logger.info(
      {
        request_id: requestId,
        method,
        route: routeLabel,
        status,
        duration_ms: Math.round(seconds * 10_000) / 10,
      },
      'request',
    );
    this.requestDone();
  }

  private requestDone(): void {
    this.inFlightCount--;
    if (this.inFlightCount === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }
}
