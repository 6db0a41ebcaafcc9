import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { AgentSessions } from '../../agent-sessions/agent-sessions.ts';
import { recentSessions } from '../../agent-sessions/session-history.ts';
import { listSessionReports, transcriptBody } from '../../agent-sessions/session-listing.ts';
import {
  recordingResponse,
  type SessionRecordings,
} from '../../agent-sessions/session-recordings.ts';
import { sessionReportBody } from '../../agent-sessions/session-report-view.ts';
import type { Database } from '../../db/schema.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { ApiError } from '../../errors.ts';
import { pageCursorSchema, UUID_PATTERN } from '../../http/page-cursor.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import {
  AGENT_BUILDER_ROLES,
  END_USER_DATA_READER_ROLES,
  RECORDING_MANAGER_ROLES,
} from '../../workspaces/roles.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { operatorRoute } from '../route.ts';

const listQuery = z.strictObject({
  agent_id: z.string().min(1).max(64).optional(),
  end_user_id: z.string().min(1).max(200).optional(),
  cursor: pageCursorSchema(UUID_PATTERN, 'sessions').optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

function scopeOf(member: OperatorPrincipal, request: HttpRequest): TenantScope {
  return { workspaceId: member.workspaceId, environment: request.environment };
}

/**
 * Agent sessions (the dashboard's Agents › Sessions page): the environment's newest live
 * sessions with what `GET /v1/agent-sessions/{id}` reports of each, and one session with
 * its transcript and its recording. A session's transcript and recording are end users'
 * words, read by the roles `mayReadEndUserData` admits; only an Owner or Admin deletes a
 * recording.
 */
export function agentSessionRoutes(
  guard: OperatorGuard,
  db: Kysely<Database>,
  sessions: AgentSessions,
  recordings: SessionRecordings,
): AnyRoute[] {
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/agent-sessions',
      operationId: 'operatorListAgentSessions',
      summary:
        'The live Agent sessions of the environment, newest first (of one Agent with `agent_id`, of one end user with `end_user_id`, older than `cursor`), each as GET /v1/agent-sessions/{id} reports it, and `next_cursor`.',
      roles: AGENT_BUILDER_ROLES,
      query: listQuery,
      errors: ['invalid_request'],
      handle: async ({ member, request, query }) => {
        const page = await listSessionReports(db, sessions, scopeOf(member, request), {
          agentId: query.agent_id,
          endUserId: query.end_user_id,
          cursor: query.cursor,
          limit: query.limit ?? 50,
        });
        return {
          status: 200,
          body: {
            sessions: page.sessions.map((entry) => ({
              ...sessionReportBody(entry.report),
              agent_slug: entry.agentSlug,
              end_user_id: entry.endUserId,
            })),
            next_cursor: page.nextCursor,
          },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/agent-sessions/:sessionId',
      operationId: 'operatorGetAgentSession',
      summary:
        'One live Agent session as GET /v1/agent-sessions/{id} reports it, with its transcript.',
      roles: END_USER_DATA_READER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        const scope = scopeOf(member, request);
        const id = request.params.sessionId ?? '';
        const report = await sessions.report(scope, id);
        if (!report) throw new ApiError('not_found', 'No such Agent session.');
        const [entry] = await recentSessions(db, scope, { sessionId: id, limit: 1 });
        return {
          status: 200,
          body: {
            session: {
              ...sessionReportBody(report),
              agent_slug: entry?.agentSlug ?? null,
              end_user_id: report.record.endUserId,
            },
            transcript: await transcriptBody(db, id),
          },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/agent-sessions/:sessionId/recording',
      operationId: 'operatorGetAgentSessionRecording',
      summary:
        'The recording of a live Agent session as GET /v1/agent-sessions/{id}/recording serves it: stereo Ogg Opus, the user left, the Agent right.',
      roles: END_USER_DATA_READER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        const recording = await recordings.read(
          scopeOf(member, request),
          request.params.sessionId ?? '',
        );
        if (!recording) throw new ApiError('not_found', 'This session has no recording.');
        return recordingResponse(recording);
      },
    }),
    operatorRoute(guard, {
      method: 'DELETE',
      path: '/agent-sessions/:sessionId/recording',
      operationId: 'operatorDeleteAgentSessionRecording',
      summary:
        'Deletes the recording of a live Agent session (Owner and Admin); the session and its transcript stay.',
      roles: RECORDING_MANAGER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        if (!(await recordings.remove(scopeOf(member, request), request.params.sessionId ?? ''))) {
          throw new ApiError('not_found', 'This session has no recording.');
        }
        return { status: 200, body: { deleted: true } };
      },
    }),
  ];
}
