import type { Authenticator } from '../auth/authenticate.ts';
import type { AuthContext } from '../auth/context.ts';
import type { AnyRoute } from './route.ts';
import type { Handler } from './types.ts';
import { parseJsonBody, validate } from './validate.ts';

/**
 * Turns a route definition into a handler: authenticate and run the account checks first,
 * then parse and validate the query and body, then call the route.
 */
export function routeHandler(route: AnyRoute, authenticator: Authenticator): Handler {
  return async (request) => {
    let auth: AuthContext | null = null;
    if (route.auth.kind === 'workspace_key') {
      auth = await authenticator.workspaceKey(
        request.headers.authorization,
        request.environment,
        route.auth.capability,
      );
    }
    const query = route.query
      ? validate(route.query, Object.fromEntries(request.query), 'query')
      : undefined;
    const body = route.body
      ? validate(route.body, parseJsonBody(request.body, request.headers['content-type']), 'body')
      : undefined;
    return route.handle({ request, auth, body, query });
  };
}
