import type { Authenticator } from '../auth/authenticate.ts';
import type { CredentialWatch } from '../auth/credential-watch.ts';
import { ApiError } from '../errors.ts';
import type { WebSocketRoute } from '../http/websocket.ts';
import { EventChannel } from '../tts/stream/channel.ts';
import type { OriginAllowlist } from '../tts/stream/origins.ts';
import { MAX_FRAME_BYTES } from './protocol.ts';
import { type TranscriptionDependencies, TranscriptionSession } from './session.ts';

export const TRANSCRIPTION_PATH = '/v1/realtime-transcription';

/**
 * `WS /v1/realtime-transcription`: authenticates the upgrade like `/v1/tts/stream` (a
 * workspace key as bearer header, or a realtime transcription token as bearer header or
 * `token` query parameter; a token used from an Origin outside the allowlist is refused)
 * and runs one {@link TranscriptionSession} per connection. Binary frames are audio. An
 * open connection whose key is revoked or whose workspace is suspended ends with that error.
 */
export function transcriptionRoute(
  authenticator: Authenticator,
  origins: OriginAllowlist,
  credentials: CredentialWatch,
  deps: TranscriptionDependencies,
): WebSocketRoute {
  return {
    path: TRANSCRIPTION_PATH,
    maxFrameBytes: MAX_FRAME_BYTES,
    binaryFrames: true,
    accept: async (request) => {
      const auth = await authenticator.streamCredential(
        request.headers.authorization,
        request.query.get('token') ?? undefined,
        request.environment,
        'transcription',
        'transcription',
      );
      const origin = request.headers.origin;
      if (auth.credential === 'stream_token' && origin !== undefined && !origins.allows(origin)) {
        throw new ApiError('unauthorized', 'This Origin may not use transcription tokens.');
      }
      return (connection) => {
        const session = new TranscriptionSession(deps, auth, new EventChannel(connection));
        const unwatch = credentials.watch(auth, (error) => session.stop(error));
        return {
          opened: () => session.opened(),
          receive: (value) => session.receive(value),
          receiveBinary: (data) => session.receiveAudio(data),
          drained: () => session.drained(),
          lost: (code) => {
            unwatch();
            session.lost(code);
          },
        };
      };
    },
  };
}

/**
 * The transcription WebSocket's URL beside a configured `/v1/tts/stream` URL: the same
 * origin and path prefix (a proxy's), with this route's path.
 */
export function transcriptionWebsocketUrl(ttsStreamUrl: string): string {
  const url = new URL(ttsStreamUrl);
  url.pathname = `${url.pathname.replace(/\/v1\/tts\/stream\/?$/, '').replace(/\/+$/, '')}${TRANSCRIPTION_PATH}`;
  url.search = '';
  return url.toString();
}
