import { z } from 'zod';
import type { Environment } from '../app/config.ts';
import { requireAuth } from '../auth/context.ts';
import type { StreamTokens } from '../auth/stream-tokens.ts';
import { ApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { parseJsonBody, validate } from '../http/validate.ts';
import {
  transcriptionSessionDetailSchema,
  transcriptionSessionListQuerySchema,
  transcriptionSessionListSchema,
  transcriptionTokenSchema,
} from './schemas.ts';
import type { TranscriptionSessionReads } from './session-reads.ts';

const AUTH = { kind: 'workspace_key', capability: 'transcription' } as const;
const emptyBodySchema = z.strictObject({});

export interface TranscriptionRouteOptions {
  tokens: StreamTokens;
  reads: TranscriptionSessionReads;
  /** The WebSocket URL of each environment, from configuration (never the request's Host). */
  websocketUrl: (environment: Environment) => string;
}

/**
 * `POST /v1/realtime-transcription-tokens` (a workspace key mints a 2-minute browser
 * credential for `/v1/realtime-transcription`), and the session reads
 * `GET /v1/realtime-transcription-sessions` and `GET .../{sessionId}`.
 */
export function transcriptionRoutes(options: TranscriptionRouteOptions): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/realtime-transcription-tokens',
      operationId: 'createRealtimeTranscriptionToken',
      summary:
        'Mint a realtime transcription token (valid 2 minutes) for a browser or app to open `/v1/realtime-transcription`; the body is empty or `{}`.',
      tags: ['transcription'],
      auth: AUTH,
      responses: {
        201: {
          description: 'A realtime transcription token.',
          schema: transcriptionTokenSchema,
          headers: { 'Cache-Control': 'no-store' },
        },
      },
      handle: async ({ request, auth }) => {
        const caller = requireAuth(auth);
        if (request.body.byteLength > 0) {
          validate(
            emptyBodySchema,
            parseJsonBody(request.body, request.headers['content-type']),
            'body',
          );
        }
        if (caller.credential !== 'api_key') {
          throw new ApiError('unauthorized', 'A workspace API key is required.');
        }
        const { token, expiresAt } = await options.tokens.mint(
          {
            keyId: caller.keyId,
            workspaceId: caller.workspaceId,
            environment: caller.environment,
          },
          Date.now(),
          'transcription',
        );
        return {
          status: 201,
          headers: { 'cache-control': 'no-store' },
          body: {
            token,
            expires_at: expiresAt.toISOString(),
            websocket_url: options.websocketUrl(caller.environment),
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/realtime-transcription-sessions',
      operationId: 'listRealtimeTranscriptionSessions',
      summary:
        'Realtime transcription sessions of the environment, newest first, without their transcripts; page with `cursor`.',
      tags: ['transcription'],
      auth: AUTH,
      query: transcriptionSessionListQuerySchema,
      errors: ['invalid_request'],
      responses: {
        200: { description: 'One page of sessions.', schema: transcriptionSessionListSchema },
      },
      handle: async ({ auth, query }) => {
        const caller = requireAuth(auth);
        const page = await options.reads.list(caller, {
          cursor: query.cursor,
          limit: query.limit ?? 20,
        });
        return { status: 200, body: page };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/realtime-transcription-sessions/:sessionId',
      operationId: 'getRealtimeTranscriptionSession',
      summary:
        'One realtime transcription session with its final transcript (segments with their times); it grows while the session runs.',
      tags: ['transcription'],
      auth: AUTH,
      errors: ['not_found'],
      responses: {
        200: { description: 'The session.', schema: transcriptionSessionDetailSchema },
      },
      handle: async ({ request, auth }) => {
        const caller = requireAuth(auth);
        const body = await options.reads.get(caller, request.params.sessionId ?? '');
        return { status: 200, body };
      },
    }),
  ];
}
