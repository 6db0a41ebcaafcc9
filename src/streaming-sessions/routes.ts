import type { Kysely } from 'kysely';
import { type AuthContext, requireAuth } from '../auth/context.ts';
import type { Database } from '../db/schema.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { HttpRequest } from '../http/types.ts';
import { parseJsonBody, validate } from '../http/validate.ts';
import { StreamingSessionReads } from './reads.ts';
import {
  type AppendEventsBody,
  appendEventsSchema,
  appendedSchema,
  createSessionSchema,
  eventListSchema,
  type ListEventsQuery,
  type ListSessionsQuery,
  listEventsQuerySchema,
  listSessionsQuerySchema,
  sessionListSchema,
  sessionSchema,
  type UpdateSessionBody,
  updateSessionSchema,
} from './schemas.ts';
import { StreamingSessionStore } from './store.ts';

const AUTH = { kind: 'workspace_key', capability: 'tts' } as const;
const TAGS = ['streaming-sessions'];
/** A batch of events: 100 events of at most 4 KiB of data each, with room for the rest. */
const EVENTS_BODY_LIMIT_BYTES = 512 * 1024;

/**
 * `/v1/streaming-sessions`: a client reports a playback session that streams many
 * utterances (a screen of an app, a call): its speech requests are those sent with its
 * `partner_session_id`, whose usage the session reports, and its playback events (first
 * audio heard, underruns, interruptions) are kept in order for the backend to read.
 */
export function streamingSessionRoutes(db: Kysely<Database>): AnyRoute[] {
  const store = new StreamingSessionStore(db);
  const reads = new StreamingSessionReads(db, store);
  const scopeOf = (auth: AuthContext | null): TenantScope => {
    const caller = requireAuth(auth);
    return { workspaceId: caller.workspaceId, environment: caller.environment };
  };
  const idOf = (request: HttpRequest) => (request.params.sessionId ?? '').toLowerCase();
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/streaming-sessions',
      operationId: 'createStreamingSession',
      summary:
        'Open a streaming session: send its `partner_session_id` with each speech request of the session (one-shot or streaming) and report playback events to it. Body optional.',
      tags: TAGS,
      auth: AUTH,
      requestContent: { 'application/json': createSessionSchema },
      responses: { 201: { description: 'The session.', schema: sessionSchema } },
      errors: ['conflict'],
      handle: async ({ auth, request }) => {
        const scope = scopeOf(auth);
        const body =
          request.body.byteLength === 0
            ? {}
            : validate(
                createSessionSchema,
                parseJsonBody(request.body, request.headers['content-type']),
                'body',
              );
        const session = await store.create(scope, {
          apiKeyId: requireAuth(auth).keyId,
          ...(body.partner_session_id ? { partnerSessionId: body.partner_session_id } : {}),
          metadata: body.metadata ?? {},
        });
        return { status: 201, body: await reads.body(scope, session) };
      },
    }),
    defineRoute<undefined, ListSessionsQuery>({
      method: 'GET',
      path: '/v1/streaming-sessions',
      operationId: 'listStreamingSessions',
      summary: 'Streaming sessions of the environment, newest first, each with its usage.',
      tags: TAGS,
      auth: AUTH,
      query: listSessionsQuerySchema,
      responses: { 200: { description: 'One page of sessions.', schema: sessionListSchema } },
      handle: async ({ auth, query }) => ({
        status: 200,
        headers: { 'cache-control': 'no-store' },
        body: await reads.list(scopeOf(auth), {
          status: query.status,
          cursor: query.cursor,
          limit: query.limit ?? 20,
        }),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/streaming-sessions/:sessionId',
      operationId: 'getStreamingSession',
      summary: 'One streaming session with its usage and event counts.',
      tags: TAGS,
      auth: AUTH,
      errors: ['not_found'],
      responses: { 200: { description: 'The session.', schema: sessionSchema } },
      handle: async ({ auth, request }) => {
        const scope = scopeOf(auth);
        return {
          status: 200,
          headers: { 'cache-control': 'no-store' },
          body: await reads.body(scope, await reads.find(scope, idOf(request))),
        };
      },
    }),
    defineRoute<UpdateSessionBody>({
      method: 'PATCH',
      path: '/v1/streaming-sessions/:sessionId',
      operationId: 'updateStreamingSession',
      summary:
        'Replace the metadata and/or end the session (`status: ended`, once; events are taken for 10 more minutes).',
      tags: TAGS,
      auth: AUTH,
      body: updateSessionSchema,
      errors: ['not_found', 'conflict'],
      responses: { 200: { description: 'The session.', schema: sessionSchema } },
      handle: async ({ auth, request, body }) => {
        const scope = scopeOf(auth);
        const id = idOf(request);
        const session = await store.update(scope, id, {
          ...(body.status ? { status: body.status } : {}),
          ...(body.metadata ? { metadata: body.metadata } : {}),
        });
        if (!session) throw new ApiError('not_found', `No streaming session ${id}.`);
        return { status: 200, body: await reads.body(scope, session) };
      },
    }),
    defineRoute<AppendEventsBody>({
      method: 'POST',
      path: '/v1/streaming-sessions/:sessionId/events',
      operationId: 'appendStreamingSessionEvents',
      summary:
        'Report playback events (1 to 100 in order); they are numbered as received. Refused 10 minutes after the session ended or beyond 10,000 events.',
      tags: TAGS,
      auth: AUTH,
      body: appendEventsSchema,
      bodyLimitBytes: EVENTS_BODY_LIMIT_BYTES,
      errors: ['not_found', 'conflict'],
      responses: { 201: { description: 'Their numbers.', schema: appendedSchema } },
      handle: async ({ auth, request, body }) => {
        const scope = scopeOf(auth);
        const id = idOf(request);
        const now = new Date().toISOString();
        const numbered = await store.appendEvents(
          scope,
          id,
          body.events.map((event) => ({
            type: event.type,
            occurredAt: event.occurred_at ? new Date(event.occurred_at).toISOString() : now,
            requestId: event.request_id ?? null,
            data: event.data ?? null,
          })),
        );
        if (!numbered) throw new ApiError('not_found', `No streaming session ${id}.`);
        return {
          status: 201,
          body: {
            accepted: body.events.length,
            first_seq: numbered.first,
            last_seq: numbered.last,
          },
        };
      },
    }),
    defineRoute<undefined, ListEventsQuery>({
      method: 'GET',
      path: '/v1/streaming-sessions/:sessionId/events',
      operationId: 'listStreamingSessionEvents',
      summary: 'The session’s events in the order received, one page (`type` filters).',
      tags: TAGS,
      auth: AUTH,
      query: listEventsQuerySchema,
      errors: ['not_found'],
      responses: { 200: { description: 'One page of events.', schema: eventListSchema } },
      handle: async ({ auth, request, query }) => ({
        status: 200,
        headers: { 'cache-control': 'no-store' },
        body: await reads.events(scopeOf(auth), idOf(request), {
          cursor: query.cursor,
          limit: query.limit ?? 100,
          type: query.type,
        }),
      }),
    }),
  ];
}
