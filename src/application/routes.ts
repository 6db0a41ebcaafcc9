import { APPLICATION_LIMITS } from '@awp/protocol';
import { START_UNDO_RESERVE_MS } from '../agent-sessions/session-room-start.ts';
import { avatarEntry } from '../agents/avatar-routes.ts';
import type { Environment } from '../app/config.ts';
import { requireAuth } from '../auth/context.ts';
import { ApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { answerDeadline } from '../http/types.ts';
import {
  type ApplicationStartBody,
  applicationStartedSchema,
  applicationStartSchema,
} from './schemas.ts';
import type { ApplicationSessions } from './service.ts';

/**
 * `POST /v1/agents/{agentId}/application-sessions`: a customer backend starts a session
 * whose instructions, history and tools it owns (workspace key only: never a browser).
 */
export function applicationSessionRoutes(
  service: ApplicationSessions,
  publicBaseUrls: Partial<Record<Environment, string>>,
): AnyRoute[] {
  return [
    defineRoute<ApplicationStartBody>({
      method: 'POST',
      path: '/v1/agents/:agentId/application-sessions',
      operationId: 'startApplicationSession',
      summary:
        'Start a backend-owned application session (protocol v2) with a published Agent. Answers a `control` part the backend keeps and a `session` part for the browser. The same chatSessionId and requestId return the same session with fresh credentials; a start refused with the retryable `provider_unavailable` (no worker took it) started nothing, so its retry with the same keys is a new start. What the schema cannot state: the body’s `agentId` equals the path’s, tool names are unique and each tool’s `parameters` is a well-formed JSON Schema of an object (else 400 `invalid_request`); a deployment without LiveKit answers 503 `service_unavailable`.',
      tags: ['agents'],
      auth: { kind: 'workspace_key', capability: 'agents' },
      bodyLimitBytes: APPLICATION_LIMITS.startBodyBytes,
      body: applicationStartSchema,
      errors: [
        'not_found',
        'insufficient_credit',
        'conflict',
        'agent_not_published',
        'agent_not_api_ready',
        'rate_limited',
        'service_unavailable',
        'provider_unavailable',
      ],
      responses: {
        201: {
          description: 'The session: `control` for the backend, `session` for the browser.',
          schema: applicationStartedSchema,
          headers: { 'Cache-Control': 'no-store' },
        },
      },
      handle: async ({ request, auth, body }) => {
        const caller = requireAuth(auth);
        if (body.agentId !== request.params.agentId) {
          throw new ApiError('invalid_request', 'agentId: must equal the agentId of the path');
        }
        return {
          status: 201,
          headers: { 'cache-control': 'no-store' },
          body: await service.start(
            caller,
            body,
            (avatar) => avatarEntry(avatar, request, publicBaseUrls),
            answerDeadline(request, START_UNDO_RESERVE_MS),
          ),
        };
      },
    }),
  ];
}
