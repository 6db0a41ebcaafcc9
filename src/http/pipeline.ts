import type { Authenticator } from '../auth/authenticate.ts';
import { type AuthContext, requirePermission } from '../auth/context.ts';
import type { AnyRoute } from './route.ts';
import type { Handler, HttpRequest } from './types.ts';
import { parseJsonBody, validate } from './validate.ts';

/**
 * Turns a route definition into a handler: authenticate and run the account checks first,
 * from the headers alone (`beforeBody`, run by the server before it waits for the body, so
 * an unauthenticated client cannot make the server wait for or hold its upload), then parse
 * and validate the query and body, then call the route.
 */
export function routeHandler(
  route: AnyRoute,
  authenticator: Authenticator,
): { beforeBody: (request: HttpRequest) => Promise<void>; handler: Handler } {
  const authenticated = new WeakMap<HttpRequest, AuthContext>();
  const beforeBody = async (request: HttpRequest) => {
    await route.checkBeforeBody?.(request);
    if (route.auth.kind !== 'workspace_key') return;
    const auth = await authenticator.workspaceKey(
      request.headers.authorization,
      request.environment,
      route.auth.capability,
    );
    if (route.auth.permission) requirePermission(auth, route.auth.permission);
    authenticated.set(request, auth);
  };
  const handler: Handler = async (request) => {
    let auth: AuthContext | null = null;
    if (route.auth.kind === 'workspace_key') {
      auth = authenticated.get(request) ?? null;
      // A server that did not run beforeBody (none does today) still authenticates.
      if (auth === null) {
        await beforeBody(request);
        auth = authenticated.get(request) ?? null;
      }
    }
    const query = route.query
      ? validate(route.query, Object.fromEntries(request.query), 'query')
      : undefined;
    const body = route.body
      ? validate(route.body, parseJsonBody(request.body, request.headers['content-type']), 'body')
      : undefined;
    return route.handle({ request, auth, body, query });
  };
  return { beforeBody, handler };
}
