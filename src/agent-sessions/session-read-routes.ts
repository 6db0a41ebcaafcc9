import type { Kysely } from 'kysely';
import { requireAuth } from '../auth/context.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { AgentSessions } from './agent-sessions.ts';
import { listSessionReports, transcriptBody } from './session-listing.ts';
import { sessionReportBody } from './session-report-view.ts';
import { sessionListQuerySchema, sessionListSchema, transcriptSchema } from './session-schemas.ts';

const AUTH = { kind: 'workspace_key', capability: 'agents' } as const;

/**
 * `GET /v1/agent-sessions` and `GET /v1/agent-sessions/{id}/transcript`: a backend finds its
 * sessions (of an Agent, of an end user) and reads what was said, for instance to catch up
 * on `agent_session.ended` webhooks it missed.
 */
export function sessionReadRoutes(db: Kysely<Database>, sessions: AgentSessions): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/agent-sessions',
      operationId: 'listAgentSessions',
      summary:
        'Live Agent sessions of the environment, newest first (of one Agent with `agent_id`, of one end user with `end_user_id`), each as GET /v1/agent-sessions/{id} reports it, with its end user.',
      tags: ['agents'],
      auth: AUTH,
      query: sessionListQuerySchema,
      errors: ['invalid_request'],
      responses: { 200: { description: 'One page of sessions.', schema: sessionListSchema } },
      handle: async ({ auth, query }) => {
        const caller = requireAuth(auth);
        const page = await listSessionReports(db, sessions, caller, {
          agentId: query.agent_id,
          endUserId: query.end_user_id,
          cursor: query.cursor,
          limit: query.limit ?? 20,
        });
        return {
          status: 200,
          body: {
            sessions: page.sessions.map((entry) => ({
              ...sessionReportBody(entry.report),
              end_user_id: entry.endUserId,
              chat_session_id: entry.report.record.application?.chatSessionId ?? null,
            })),
            next_cursor: page.nextCursor,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/agent-sessions/:sessionId/transcript',
      operationId: 'getAgentSessionTranscript',
      summary:
        'The persisted transcript of a live Agent session, oldest turn first; it grows while the session runs.',
      tags: ['agents'],
      auth: AUTH,
      errors: ['not_found'],
      responses: { 200: { description: 'The transcript.', schema: transcriptSchema } },
      handle: async ({ request, auth }) => {
        const caller = requireAuth(auth);
        const id = request.params.sessionId ?? '';
        const report = await sessions.report(caller, id);
        if (!report) throw new ApiError('not_found', 'No such Agent session.');
        return { status: 200, body: { session_id: id, transcript: await transcriptBody(db, id) } };
      },
    }),
  ];
}
