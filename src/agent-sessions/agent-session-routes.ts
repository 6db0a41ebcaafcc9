import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { Agents } from '../agents/agents.ts';
import { avatarEntry, avatarSchema } from '../agents/avatar-routes.ts';
import { DEFAULT_AVATAR_ID, findAvatar } from '../agents/avatars/catalog.ts';
import { timeZoneSchema } from '../agents/capabilities/calendar/time-zone-schema.ts';
import { applyLegacyFields, characterCardSchema } from '../agents/character-card.ts';
import type { Environment } from '../app/config.ts';
import { bearerCredential } from '../auth/authenticate.ts';
import { requireAuth } from '../auth/context.ts';
import { ApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { answerDeadline, type HttpRequest } from '../http/types.ts';
import { parseJsonBody, validate } from '../http/validate.ts';
import type { AgentSessions, SessionOverrides } from './agent-sessions.ts';
import { type LivekitRooms, sessionRoom } from './livekit-rooms.ts';
import { recordingResponse, type SessionRecordings } from './session-recordings.ts';
import { sessionReportBody } from './session-report-view.ts';
import { openSessionRoom, START_UNDO_RESERVE_MS } from './session-room-start.ts';
import { sessionReportSchema } from './session-schemas.ts';
import type { AgentSessionClaims, AgentSessionTokens } from './session-tokens.ts';

const MAX_OVERRIDE_CHARS = 100_000;
/**
 * `sessionContext.userName` is sent as given; this bound only keeps the end user's LiveKit
 * token (which carries the name as the participant's name) within what URLs and headers
 * take everywhere.
 */
export const MAX_USER_NAME_BYTES = 4096;

export const sessionStartSchema = z
  .strictObject({
    sessionContext: z
      .strictObject({
        userName: z
          .string()
          .min(1)
          .refine(
            (name) => Buffer.byteLength(name, 'utf8') <= MAX_USER_NAME_BYTES,
            `at most ${MAX_USER_NAME_BYTES} bytes of UTF-8`,
          )
          .optional()
          .describe(
            `How the Agent calls the user, used as given (at most ${MAX_USER_NAME_BYTES} bytes of UTF-8: it travels inside the end user's LiveKit token).`,
          ),
        timeZone: timeZoneSchema().optional(),
      })
      .optional(),
    overrides: z
      .strictObject({
        persona: z.string().max(MAX_OVERRIDE_CHARS).optional(),
        systemPrompt: z.string().max(MAX_OVERRIDE_CHARS).optional(),
        characterCard: characterCardSchema.optional(),
      })
      .refine(
        (o) =>
          o.characterCard === undefined ||
          (o.persona === undefined && o.systemPrompt === undefined),
        'characterCard replaces the whole card: do not combine it with persona or systemPrompt',
      )
      .optional()
      .describe(
        'This session only: legacy `persona`/`systemPrompt` (others inherit the card) or a complete `characterCard`.',
      ),
  })
  .meta({ title: 'AgentSessionStart' });

const sessionStartedSchema = z
  .object({
    session_id: z.string(),
    agent_id: z.string(),
    room: z.string(),
    livekit: z.object({
      url: z.string(),
      token: z.string().describe('LiveKit access token of the end user.'),
    }),
    avatar: avatarSchema,
    expires_at: z.string(),
  })
  .meta({ title: 'AgentSessionStarted' });

export interface AgentSessionRouteOptions {
  agents: Agents;
  tokens: AgentSessionTokens;
  sessions: AgentSessions;
  /** Undefined when no LiveKit is configured: starts answer 503. */
  rooms: LivekitRooms | undefined;
  maxDurationMs: number;
  /** Sessions a workspace may run at once (0: no limit); beyond it `429 rate_limited`. */
  maxSessionsPerWorkspace: number;
  publicBaseUrls: Partial<Record<Environment, string>>;
  recordings: SessionRecordings;
}

/**
 * `POST /v1/agents/{agentId}/sessions` (an Agent session token, called by browsers) and
 * `GET /v1/agent-sessions/{sessionId}` (workspace key).
 */
export function agentSessionRoutes(options: AgentSessionRouteOptions): AnyRoute[] {
  const { tokens, sessions, rooms } = options;
  // The token's claims as checked before the body was read, so the handler checks it once.
  const checkedTokens = new WeakMap<HttpRequest, AgentSessionClaims>();
  const checkToken = (request: HttpRequest) =>
    tokens.check(sessionBearer(request), request.params.agentId ?? '', request.environment);
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/agents/:agentId/sessions',
      operationId: 'startAgentSession',
      summary:
        'Start a live conversation with a published Agent: a LiveKit room with the agent worker in it. Consumes the session token.',
      tags: ['agents'],
      auth: { kind: 'agent_session_token' },
      cors: 'allowlist',
      requestContent: { 'application/json': sessionStartSchema },
      errors: [
        'session_token_agent_mismatch',
        'agent_not_published',
        'rate_limited',
        'service_unavailable',
        'provider_unavailable',
      ],
      responses: {
        201: {
          description: 'The session and how to join it.',
          schema: sessionStartedSchema,
          headers: { 'Cache-Control': 'no-store' },
        },
      },
      // Credential first (401/403 before the body is read), but not used up yet.
      checkBeforeBody: async (request) => {
        checkedTokens.set(request, await checkToken(request));
      },
      handle: async ({ request }) => {
        const bearer = sessionBearer(request);
        const agentId = request.params.agentId ?? '';
        // Checked before the body was read, and not used up yet: the token is consumed only by
        // a start that succeeds, or refused for the token's own sake.
        const checked = checkedTokens.get(request) ?? (await checkToken(request));
        const body =
          request.body.byteLength > 0
            ? validate(
                sessionStartSchema,
                parseJsonBody(request.body, request.headers['content-type']),
                'body',
              )
            : {};
        if (!rooms) {
          throw new ApiError(
            'service_unavailable',
            'Live Agent sessions need a LiveKit server: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET (npm start runs one locally).',
          );
        }
        const published = await options.agents.activePublication(
          { workspaceId: checked.workspaceId, environment: checked.environment },
          agentId,
        );
        if (!published) {
          throw new ApiError('agent_not_published', 'The Agent has no active publication.');
        }
        const overrides = body.overrides as SessionOverrides | undefined;
        const card =
          overrides && 'characterCard' in overrides && overrides.characterCard
            ? overrides.characterCard
            : applyLegacyFields(published.characterCard, {
                persona: (overrides as { persona?: string } | undefined)?.persona,
                instructions: (overrides as { systemPrompt?: string } | undefined)?.systemPrompt,
              });
        const claims = await tokens.consume(bearer, agentId, request.environment);
        const sessionId = uuidv7();
        const expiresAt = new Date(Date.now() + options.maxDurationMs);
        try {
          await sessions.create({
            id: sessionId,
            snapshot: { ...published, characterCard: card },
            apiKeyId: claims.keyId,
            endUserId: claims.endUserId,
            room: sessionRoom(sessionId),
            overrides,
            sessionContext: body.sessionContext,
            expiresAt,
            maxRunningPerWorkspace: options.maxSessionsPerWorkspace,
          });
        } catch (error) {
          // Refused for the workspace's sake (its concurrent sessions): the token stays usable.
          await tokens.release(claims);
          throw error;
        }
        try {
          await openSessionRoom(
            rooms,
            sessions,
            sessionId,
            options.maxDurationMs,
            answerDeadline(request, START_UNDO_RESERVE_MS),
          );
        } catch (error) {
          // The start was undone: the same token may start again.
          await tokens.release(claims);
          throw error;
        }
        const token = await rooms.userToken(sessionId, {
          name: body.sessionContext?.userName,
          ttlSeconds: Math.ceil(options.maxDurationMs / 1000),
        });
        const avatar = findAvatar(published.avatarId) ?? findAvatar(DEFAULT_AVATAR_ID);
        if (!avatar) throw new Error('the avatar catalog has no default avatar');
        return {
          status: 201,
          headers: { 'cache-control': 'no-store' },
          body: {
            session_id: sessionId,
            agent_id: agentId,
            room: sessionRoom(sessionId),
            livekit: { url: rooms.settings.publicUrl, token },
            avatar: avatarEntry(avatar, request, options.publicBaseUrls),
            expires_at: expiresAt.toISOString(),
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/agent-sessions/:sessionId',
      operationId: 'getAgentSession',
      summary: 'State, timing, transcript count and usage of a live Agent session.',
      tags: ['agents'],
      auth: { kind: 'workspace_key', capability: 'agents' },
      errors: ['not_found'],
      responses: { 200: { description: 'The session.', schema: sessionReportSchema } },
      handle: async ({ request, auth }) => {
        const caller = requireAuth(auth);
        const report = await sessions.report(caller, request.params.sessionId ?? '');
        if (!report) throw new ApiError('not_found', 'No such Agent session.');
        return { status: 200, body: sessionReportBody(report) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/agent-sessions/:sessionId/recording',
      operationId: 'getAgentSessionRecording',
      summary:
        'The recording of a live Agent session: stereo Ogg Opus at 48 kHz, the user on the left channel and the Agent on the right. Only for Agents that record sessions, once the session has ended.',
      tags: ['agents'],
      auth: { kind: 'workspace_key', capability: 'agents' },
      errors: ['not_found'],
      responses: {
        200: {
          description: 'The recording.',
          contentType: ['audio/ogg'],
          headers: { 'X-Audio-Duration-Ms': 'Length of the recording.' },
        },
      },
      handle: async ({ request, auth }) => {
        const caller = requireAuth(auth);
        const recording = await options.recordings.read(caller, request.params.sessionId ?? '');
        if (!recording) throw new ApiError('not_found', 'This session has no recording.');
        return recordingResponse(recording);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/agent-sessions/:sessionId/recording',
      operationId: 'deleteAgentSessionRecording',
      summary:
        'Deletes the recording of a live Agent session (for example when its end user asks); the session and its transcript stay.',
      tags: ['agents'],
      auth: { kind: 'workspace_key', capability: 'agents', permission: 'delete_recordings' },
      errors: ['not_found'],
      responses: { 204: { description: 'Deleted.' } },
      handle: async ({ request, auth }) => {
        const caller = requireAuth(auth);
        if (!(await options.recordings.remove(caller, request.params.sessionId ?? ''))) {
          throw new ApiError('not_found', 'This session has no recording.');
        }
        return { status: 204 };
      },
    }),
  ];
}

function sessionBearer(request: HttpRequest): string {
  const bearer = bearerCredential(request.headers.authorization);
  if (!bearer) throw new ApiError('unauthorized', 'Send the Agent session token as Bearer.');
  return bearer;
}
