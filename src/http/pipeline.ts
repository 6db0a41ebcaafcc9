import { type Authenticator, bearerCredential } from '../auth/authenticate.ts';
import { type AuthContext, requirePermission } from '../auth/context.ts';
import { ApiError } from '../errors.ts';
import type { AnyRoute } from './route.ts';
import type { Handler, HttpRequest } from './types.ts';
import { parseJsonBody, validate } from './validate.ts';

/**
 * Turns a route definition into a handler: authenticate and run the account checks first,
 * from the headers alone (`beforeBody`, run by the server before it reads any of the body,
 * so an unauthenticated client cannot make the server wait for or hold its upload), then
 * parse and validate the query and body, then call the route.
 */
export function routeHandler(
  route: AnyRoute,
  authenticator: Authenticator,
): { beforeBody: (request: HttpRequest) => Promise<void>; handler: Handler } {
  const authenticated = new WeakMap<
    HttpRequest,
    { auth: AuthContext | null; principal: unknown }
  >();
  const beforeBody = async (request: HttpRequest) => {
    await route.checkBeforeBody?.(request);
    const { auth } = route;
    if (auth.kind === 'workspace_key') {
      const context = await authenticator.workspaceKey(
        request.headers.authorization,
        request.environment,
        auth.capability,
      );
      if (auth.permission) requirePermission(context, auth.permission);
      authenticated.set(request, { auth: context, principal: undefined });
    } else if (auth.kind === 'guard') {
      authenticated.set(request, { auth: null, principal: await auth.check(request) });
    } else if (auth.kind === 'agent_session_token') {
      // The route consumes the token itself; a request without one is refused unread.
      if (!bearerCredential(request.headers.authorization)) {
        throw new ApiError('unauthorized', 'Send the Agent session token as Bearer.');
      }
    }
  };
  const handler: Handler = async (request) => {
    let caller = authenticated.get(request);
    // A server that did not run beforeBody (none does today) still authenticates.
    if (caller === undefined) {
      await beforeBody(request);
      caller = authenticated.get(request) ?? { auth: null, principal: undefined };
    }
    const query = route.query
      ? validate(route.query, Object.fromEntries(request.query), 'query')
      : undefined;
    const body = route.body
      ? validate(route.body, parseJsonBody(request.body, request.headers['content-type']), 'body')
      : undefined;
    return route.handle({ request, auth: caller.auth, principal: caller.principal, body, query });
  };
  return { beforeBody, handler };
}
