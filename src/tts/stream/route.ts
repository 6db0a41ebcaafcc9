import type { Authenticator } from '../../auth/authenticate.ts';
import type { AuthContext } from '../../auth/context.ts';
import type { CredentialWatch } from '../../auth/credential-watch.ts';
import { ApiError } from '../../errors.ts';
import type { WebSocketRoute } from '../../http/websocket.ts';
import { EventChannel } from './channel.ts';
import type { OriginAllowlist } from './origins.ts';
import { MAX_CLIENT_FRAME_BYTES } from './protocol.ts';
import { type StreamDependencies, StreamSession } from './session.ts';

export const STREAM_PATH = '/v1/tts/stream';

/**
 * `WS /v1/tts/stream`: authenticates the upgrade (a workspace key as bearer header, or a
 * stream token as bearer header or `token` query parameter) and runs one
 * {@link StreamSession} per connection. A rejected credential, or a stream token used from
 * an Origin outside the allowlist, fails the handshake with HTTP 401. An open connection
 * whose key is revoked or whose workspace is suspended ends with that error (`credentials`).
 */
export function ttsStreamRoute(
  authenticator: Authenticator,
  origins: OriginAllowlist,
  credentials: CredentialWatch,
  deps: StreamDependencies,
): WebSocketRoute {
  return {
    path: STREAM_PATH,
    maxFrameBytes: MAX_CLIENT_FRAME_BYTES,
    accept: async (request) => {
      const queryToken = request.query.get('token') ?? undefined;
      const auth: AuthContext = await authenticator.streamCredential(
        request.headers.authorization,
        queryToken,
        request.environment,
        'tts',
      );
      const origin = request.headers.origin;
      if (auth.credential === 'stream_token' && origin !== undefined && !origins.allows(origin)) {
        throw new ApiError('unauthorized', 'This Origin may not use stream tokens.');
      }
      return (connection) => {
        const session = new StreamSession(deps, auth, new EventChannel(connection));
        const unwatch = credentials.watch(auth, (error) => session.stop(error));
        return {
          opened: () => session.opened(),
          receive: (value) => session.receive(value),
          drained: () => session.drained(),
          lost: () => {
            unwatch();
            session.lost();
          },
        };
      };
    },
  };
}
