import type { Authenticator } from '../../auth/authenticate.ts';
import type { AuthContext } from '../../auth/context.ts';
import type { CredentialWatch } from '../../auth/credential-watch.ts';
import { ApiError } from '../../errors.ts';
import type { WebSocketRoute } from '../../http/websocket.ts';
import { EventChannel } from './channel.ts';
import type { OriginAllowlist } from './origins.ts';
import { MAX_CLIENT_FRAME_BYTES } from './protocol.ts';
import { type StreamDependencies, StreamingRequest } from './request.ts';

export const STREAM_PATH = '/v1/tts/stream';

/** Whether an Agent session of the workspace still runs (agent speech is for it). */
export type AgentSessionCheck = (workspaceId: string, sessionId: string) => Promise<boolean>;

/**
 * `WS /v1/tts/stream`: authenticates the upgrade (a workspace key as bearer header, or a
 * stream token as bearer header or `token` query parameter, or the agent worker's agent
 * speech token for a running session) and runs one {@link StreamingRequest} per connection.
 * A rejected credential, or a token used from an Origin outside the allowlist, fails the
 * handshake with HTTP 401. An open connection whose key is revoked or whose workspace is
 * suspended ends with that error (`credentials`).
 */
export function ttsStreamRoute(
  authenticator: Authenticator,
  origins: OriginAllowlist,
  credentials: CredentialWatch,
  deps: StreamDependencies,
  sessionRuns: AgentSessionCheck,
): WebSocketRoute {
  return {
    path: STREAM_PATH,
    maxFrameBytes: MAX_CLIENT_FRAME_BYTES,
    accept: async (request) => {
      const queryToken = request.query.get('token') ?? undefined;
      const { authorization } = request.headers;
      const speech = await authenticator.agentSpeech(
        authorization,
        queryToken,
        request.environment,
      );
      if (speech?.agentSessionId !== undefined) {
        if (!(await sessionRuns(speech.workspaceId, speech.agentSessionId))) {
          throw new ApiError('unauthorized', 'The session of this agent speech token is over.');
        }
      }
      const auth: AuthContext =
        speech ??
        (await authenticator.streamCredential(
          authorization,
          queryToken,
          request.environment,
          'tts',
        ));
      const origin = request.headers.origin;
      if (auth.credential !== 'api_key' && origin !== undefined && !origins.allows(origin)) {
        throw new ApiError('unauthorized', 'This Origin may not use stream tokens.');
      }
      return (connection) => {
        const streamingRequest = new StreamingRequest(deps, auth, new EventChannel(connection));
        const unwatch = credentials.watch(auth, (error) => streamingRequest.stop(error));
        return {
          opened: () => streamingRequest.opened(),
          receive: (value) => streamingRequest.receive(value),
          drained: () => streamingRequest.drained(),
          lost: () => {
            unwatch();
            streamingRequest.lost();
          },
        };
      };
    },
  };
}
