import type { z } from 'zod';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import { transcriptionSessionListQuerySchema } from '../../transcription/schemas.ts';
import type { TranscriptionSessionReads } from '../../transcription/session-reads.ts';
import { END_USER_DATA_READER_ROLES } from '../../workspaces/roles.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { operatorRoute } from '../route.ts';

/** Sessions the Transcription page lists at first, and a page's default. */
const PAGE_SIZE = 50;

function scopeOf(member: OperatorPrincipal, request: HttpRequest): TenantScope {
  return { workspaceId: member.workspaceId, environment: request.environment };
}

/**
 * Realtime transcription sessions (the dashboard's Agents › Transcription page) of the
 * member's workspace and the listener's environment, as `GET
 * /v1/realtime-transcription-sessions` shows them, to the roles that may read end users'
 * data (`mayReadEndUserData`): the transcripts are end users' words.
 */
export function transcriptionSessionRoutes(
  guard: OperatorGuard,
  reads: TranscriptionSessionReads,
): AnyRoute[] {
  return [
    operatorRoute<undefined, z.infer<typeof transcriptionSessionListQuerySchema>>(guard, {
      method: 'GET',
      path: '/transcription-sessions',
      operationId: 'operatorListTranscriptionSessions',
      summary:
        'The realtime transcription sessions of the environment, newest first, without their transcripts (`cursor`: the previous page’s `next_cursor`; `limit` 1 to 100, default 50).',
      roles: END_USER_DATA_READER_ROLES,
      query: transcriptionSessionListQuerySchema,
      errors: ['invalid_request'],
      handle: async ({ member, request, query }) => ({
        status: 200,
        body: await reads.list(scopeOf(member, request), {
          cursor: query.cursor,
          limit: query.limit ?? PAGE_SIZE,
        }),
      }),
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/transcription-sessions/:sessionId',
      operationId: 'operatorGetTranscriptionSession',
      summary:
        'One realtime transcription session with its final transcript, as GET /v1/realtime-transcription-sessions/{id} answers it.',
      roles: END_USER_DATA_READER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => ({
        status: 200,
        body: {
          session: await reads.get(scopeOf(member, request), request.params.sessionId ?? ''),
        },
      }),
    }),
  ];
}
