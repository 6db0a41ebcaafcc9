import { z } from 'zod';
import type { Environment } from '../../app/config.ts';
import { requireAuth } from '../../auth/context.ts';
import type { StreamTokens } from '../../auth/stream-tokens.ts';
import { ApiError } from '../../errors.ts';
import { type AnyRoute, defineRoute } from '../../http/route.ts';
import { parseJsonBody, validate } from '../../http/validate.ts';
import { STREAM_PATH } from './route.ts';

const tokenResponseSchema = z
  .object({
    token: z.string().describe('Short-lived credential for the streaming endpoint.'),
    expires_at: z.string().describe('End of the 2-minute validity (ISO 8601, UTC).'),
    websocket_url: z.string().describe('Streaming URL to open.'),
    capabilities: z
      .object({
        tts_stream: z.literal(true).describe('Opens `/v1/tts/stream` connections.'),
        tts_one_shot: z.literal(false).describe('Refused by every REST route.'),
        environment: z.enum(['production', 'development']),
      })
      .describe('What the token may do.'),
  })
  .meta({ title: 'TtsStreamToken' });

const emptyBodySchema = z.strictObject({});

export interface StreamTokenRouteOptions {
  tokens: StreamTokens;
  /**
   * The streaming URL of each environment, from configuration: never built from the
   * request's Host, which a client controls (a poisoned cache or a phishing link could
   * otherwise hand a browser someone else's endpoint).
   */
  websocketUrl: (environment: Environment) => string;
}

/** `POST /v1/tts/stream-tokens`: a workspace key mints a 2-minute streaming credential. */
export function streamTokenRoutes(options: StreamTokenRouteOptions): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/tts/stream-tokens',
      operationId: 'createTtsStreamToken',
      summary:
        'Mint a TTS stream token (valid 2 minutes) for a browser or app; the body is empty or `{}`.',
      tags: ['tts'],
      auth: { kind: 'workspace_key', capability: 'tts' },
      responses: { 200: { description: 'A stream token.', schema: tokenResponseSchema } },
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
        const { token, expiresAt } = await options.tokens.mint({
          keyId: caller.keyId,
          workspaceId: caller.workspaceId,
          environment: caller.environment,
        });
        return {
          status: 200,
          headers: { 'cache-control': 'no-store' },
          body: {
            token,
            expires_at: expiresAt.toISOString(),
            websocket_url: options.websocketUrl(caller.environment),
            capabilities: {
              tts_stream: true,
              tts_one_shot: false,
              environment: caller.environment,
            },
          },
        };
      },
    }),
  ];
}

/**
 * The configured streaming URL of an environment: `wsUrl` when set, else the public base
 * URL with `ws`/`wss`, else the local listener (`ws://localhost:<port>`).
 */
export function configuredWebsocketUrl(
  wsUrl: string | undefined,
  publicBaseUrl: string | undefined,
  localPort: number,
): string {
  if (wsUrl) return wsUrl;
  if (publicBaseUrl) {
    const url = new URL(publicBaseUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${STREAM_PATH}`;
    return url.toString();
  }
  return `ws://localhost:${localPort}${STREAM_PATH}`;
}
