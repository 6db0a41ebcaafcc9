import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import type { StreamingSessionReads } from '../../streaming-sessions/reads.ts';
import {
  type ListEventsQuery,
  type ListSessionsQuery,
  listEventsQuerySchema,
  listSessionsQuerySchema,
} from '../../streaming-sessions/schemas.ts';
import { SESSION_READER_ROLES } from '../../workspaces/roles.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { operatorRoute } from '../route.ts';

/** Sessions the Streaming sessions page lists at first, and a page's default. */
const SESSION_PAGE_SIZE = 50;
/** Events a session's page shows at first, and a page's default. */
const EVENT_PAGE_SIZE = 200;

function scopeOf(member: OperatorPrincipal, request: HttpRequest): TenantScope {
  return { workspaceId: member.workspaceId, environment: request.environment };
}

const idOf = (request: HttpRequest) => request.params.sessionId ?? '';

/**
 * Streaming sessions (the dashboard's Voices › Streaming sessions page) of the member's
 * workspace and the listener's environment, as `GET /v1/streaming-sessions` shows them:
 * each with the usage of its speech requests and its event counts, and one session's
 * events in the order received. For Owner, Admin and Builder, who read usage.
 */
export function streamingSessionRoutes(
  guard: OperatorGuard,
  reads: StreamingSessionReads,
): AnyRoute[] {
  return [
    operatorRoute<undefined, ListSessionsQuery>(guard, {
      method: 'GET',
      path: '/streaming-sessions',
      operationId: 'operatorListStreamingSessions',
      summary:
        'The streaming sessions of the environment, newest first, each with its usage and event counts (`status`, `cursor`, `limit` 1 to 100, default 50).',
      roles: SESSION_READER_ROLES,
      query: listSessionsQuerySchema,
      errors: ['invalid_request'],
      handle: async ({ member, request, query }) => ({
        status: 200,
        body: await reads.list(scopeOf(member, request), {
          status: query.status,
          cursor: query.cursor,
          limit: query.limit ?? SESSION_PAGE_SIZE,
        }),
      }),
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/streaming-sessions/:sessionId',
      operationId: 'operatorGetStreamingSession',
      summary: 'One streaming session with its usage and event counts.',
      roles: SESSION_READER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        const scope = scopeOf(member, request);
        const session = await reads.find(scope, idOf(request));
        return { status: 200, body: { session: await reads.body(scope, session) } };
      },
    }),
    operatorRoute<undefined, ListEventsQuery>(guard, {
      method: 'GET',
      path: '/streaming-sessions/:sessionId/events',
      operationId: 'operatorListStreamingSessionEvents',
      summary:
        'The session’s events in the order received, one page (`type`, `cursor`, `limit` 1 to 500, default 200).',
      roles: SESSION_READER_ROLES,
      query: listEventsQuerySchema,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request, query }) => ({
        status: 200,
        body: await reads.events(scopeOf(member, request), idOf(request), {
          cursor: query.cursor,
          limit: query.limit ?? EVENT_PAGE_SIZE,
          type: query.type,
        }),
      }),
    }),
  ];
}
