import type { z } from 'zod';
import type { Role } from '../db/schema.ts';
import type { ErrorCode } from '../errors.ts';
import type { AnyRoute, HttpMethod } from '../http/route.ts';
import type { HttpRequest, HttpResponse } from '../http/types.ts';
import { parseJsonBody, validate } from '../http/validate.ts';
import type { OperatorGuard } from './guard.ts';
import type { OperatorPrincipal } from './operator-sessions.ts';

/** Every workspace role: browsing voices and generating. */
export const EVERY_ROLE: readonly Role[] = ['owner', 'admin', 'builder', 'member'];

export interface OperatorRouteContext<Body, Query> {
  request: HttpRequest;
  member: OperatorPrincipal;
  body: Body;
  query: Query;
}

export interface OperatorRouteDefinition<Body, Query> {
  method: HttpMethod;
  /** Path below `/operator/api`, with `:name` parameters. */
  path: string;
  operationId: string;
  summary: string;
  /** Roles allowed to call the route. */
  roles: readonly Role[];
  body?: z.ZodType<Body>;
  query?: z.ZodType<Query>;
  errors?: readonly ErrorCode[];
  /** Largest body accepted (uploads); default the server's `BODY_LIMIT_BYTES`. */
  bodyLimitBytes?: number;
  /** The body goes to a temporary file (`request.bodyFile`): uploads of megabytes. */
  spoolBody?: boolean;
  handle(context: OperatorRouteContext<Body, Query>): Promise<HttpResponse>;
}

/**
 * An operator API route: the member check (session, CSRF, role) is the route's guard, run
 * on the headers before the first body byte is read, so an unauthenticated caller can make
 * the server neither hold its upload nor tell it anything about the route's input. The
 * operator API is internal and stays out of `/v1/openapi.json`.
 */
export function operatorRoute<Body = undefined, Query = undefined>(
  guard: OperatorGuard,
  route: OperatorRouteDefinition<Body, Query>,
): AnyRoute {
  return {
    method: route.method,
    path: `/operator/api${route.path}`,
    operationId: route.operationId,
    summary: route.summary,
    tags: ['operator'],
    auth: { kind: 'guard', check: (request) => guard.requireMember(request, route.roles) },
    responses: {},
    ...(route.errors ? { errors: route.errors } : {}),
    ...(route.bodyLimitBytes ? { bodyLimitBytes: route.bodyLimitBytes } : {}),
    ...(route.spoolBody ? { spoolBody: true } : {}),
    handle: async ({ request, principal }) => {
      const member = principal as OperatorPrincipal;
      const query = route.query
        ? validate(route.query, Object.fromEntries(request.query), 'query')
        : (undefined as Query);
      const body = route.body
        ? validate(route.body, parseJsonBody(request.body, request.headers['content-type']), 'body')
        : (undefined as Body);
      return route.handle({ request, member, body, query });
    },
  };
}
