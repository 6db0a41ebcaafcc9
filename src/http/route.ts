import type { z } from 'zod';
import type { AuthContext } from '../auth/context.ts';
import type { KeyPermission } from '../auth/key-permissions.ts';
import type { ErrorCode } from '../errors.ts';
import type { Capability } from '../workspaces/capabilities.ts';
import type { HttpRequest, HttpResponse } from './types.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a route authenticates its caller. */
export type RouteAuth =
  /** Public: health, metrics, the OpenAPI document. */
  | { kind: 'none' }
  /**
   * A permanent workspace key (`awp_`), and the workspace must be able to use `capability`
   * (a list: any one of them); with `permission`, the key must hold it (403 `forbidden`
   * otherwise).
   */
  | {
      kind: 'workspace_key';
      capability?: Capability | readonly Capability[];
      permission?: KeyPermission;
    }
  /**
   * A one-use Agent session token (`Authorization: Bearer`), which the route itself
   * consumes: only it knows which Agent the call is for.
   */
  | { kind: 'agent_session_token' }
  /**
   * The route's own guard (the operator API: session cookie, Origin check, role), run on
   * the headers before the first body byte is read; what it resolves is the route's
   * `principal`, and what it throws is the answer.
   */
  | { kind: 'guard'; check: (request: HttpRequest) => Promise<unknown> };

/**
 * Cross-origin access for browsers: `allowlist` answers preflight and adds CORS headers
 * for origins in `STREAM_ALLOWED_ORIGINS`; `any` sends `Access-Control-Allow-Origin: *`
 * (public resources without credentials).
 */
export type RouteCors = 'allowlist' | 'any';

export interface ResponseSpec {
  description: string;
  /** JSON body schema; omit for non-JSON bodies. */
  schema?: z.ZodType;
  /** Media types of a non-JSON body (audio), one entry per type the route can send. */
  contentType?: string | readonly string[];
  /**
   * Server-sent events the route streams instead (`text/event-stream`): one schema of
   * `{event, data}`, where `event` is the SSE event name and `data` its JSON data line.
   */
  events?: z.ZodType;
  headers?: Record<string, string>;
}

export interface RouteContext<Body, Query> {
  request: HttpRequest;
  /** The caller a workspace key authenticated; null on routes with another `auth`. */
  auth: AuthContext | null;
  /** What the route's guard resolved (`auth: { kind: 'guard' }`); undefined otherwise. */
  principal: unknown;
  body: Body;
  query: Query;
}

/**
 * One HTTP route: its schemas are the single source of validation and of the OpenAPI
 * document. `path` uses `:name` parameters.
 */
export interface RouteDefinition<Body = unknown, Query = unknown> {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  tags: string[];
  auth: RouteAuth;
  /** Browsers on other origins may call the route (CORS); omitted: same origin only. */
  cors?: RouteCors;
  /** Overrides the default body size limit. */
  bodyLimitBytes?: number;
  /**
   * The body goes to a temporary file (`request.bodyFile`, removed once the handler
   * returned) instead of memory: uploads of megabytes.
   */
  spoolBody?: boolean;
  body?: z.ZodType<Body>;
  /**
   * For routes that read `request.body` themselves (no `body` schema): the accepted content
   * types for the OpenAPI document, each with its JSON schema or `binary`.
   */
  requestContent?: Record<string, z.ZodType | 'binary'>;
  query?: z.ZodType<Query>;
  responses: Record<number, ResponseSpec>;
  /**
   * Error codes this route answers beyond the ones its authentication, body and query
   * already imply (see `src/http/openapi.ts`); they are listed in the OpenAPI document.
   */
  errors?: readonly ErrorCode[];
  /**
   * Checks of a credential the pipeline does not know (an Agent session token), from the
   * headers alone: run before the body is read, as the workspace key check is, so a refused
   * caller is told so (401, 403) whatever body it sends.
   */
  checkBeforeBody?(request: HttpRequest): Promise<void>;
  handle(context: RouteContext<Body, Query>): Promise<HttpResponse>;
}

/** Keeps a route's body and query types tied to its schemas. */
export function defineRoute<Body = undefined, Query = undefined>(
  route: RouteDefinition<Body, Query>,
): RouteDefinition<Body, Query> {
  return route;
}

// biome-ignore lint/suspicious/noExplicitAny: a route list mixes body and query types.
export type AnyRoute = RouteDefinition<any, any>;
