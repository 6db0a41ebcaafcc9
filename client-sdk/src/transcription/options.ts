import { type defaultApiOrigin, httpOriginOf, resolveApiOrigin } from '../api-origin.ts';
import { TranscriptionError } from './errors.ts';

/**
 * What a `token` callback may return: the token, or the api's token object as your backend
 * got it (`POST /v1/realtime-transcription-tokens`, `client.transcription.createToken()`).
 */
export type TranscriptionTokenResult =
  | string
  | { token: string; expires_at?: string; websocket_url?: string };

/** Options of {@link TranscriptionClient}. */
export interface TranscriptionClientOptions {
  /**
   * Returns a fresh realtime transcription token (valid 2 minutes), minted by your backend
   * with its workspace key after checking its own user. Called on every `start()`: never
   * cache it.
   */
  token: () => TranscriptionTokenResult | Promise<TranscriptionTokenResult>;
  /**
   * Origin of the api, e.g. `https://api.example.com`. When omitted, the token object's
   * `websocket_url` is used, else the deployment's default ({@link defaultApiOrigin}).
   */
  apiOrigin?: string;
  /** BCP 47 language the user speaks (`en`, `fr-CA`); omitted: the api's default or detection. */
  language?: string;
  /** Default true: interim transcripts while the user speaks (engines that give them). */
  interimResults?: boolean;
  /**
   * `vad` (default): the api ends an utterance where the speaker pauses (hands-free
   * dictation). `manual`: only `flush()` ends one (push-to-talk).
   */
  endpointing?: 'vad' | 'manual';
  /** Your id for the session (1-200 characters), kept with it on the api. */
  partnerSessionId?: string;
  /**
   * URL of the capture worklet module for pages whose Content-Security-Policy refuses
   * `blob:` scripts: serve `PCM_CAPTURE_WORKLET_SOURCE` as a JavaScript file there.
   * Default: the source shipped in this library, loaded from a `blob:` URL.
   */
  workletUrl?: string;
}

/** Options of `start()`. */
export interface TranscriptionStartOptions {
  /**
   * Audio the app already has (a microphone stream it opened, a WebRTC track, an element's
   * `captureStream()`): transcribed instead of opening the microphone. Its first audio
   * track is used and left running by `stop()` and `close()`: it stays the app's.
   */
  mediaStream?: MediaStream;
  /**
   * Constraints of the microphone the library opens, merged over its own (mono, echo
   * cancellation and noise suppression on), e.g. `{deviceId: {exact: id}}`.
   */
  microphone?: MediaTrackConstraints;
}

export interface ResolvedTranscriptionOptions {
  token: () => TranscriptionTokenResult | Promise<TranscriptionTokenResult>;
  /** Undefined when not given: the token's `websocket_url`, else the default origin. */
  apiOrigin: string | undefined;
  language: string | undefined;
  interimResults: boolean;
  endpointing: 'vad' | 'manual';
  partnerSessionId: string | undefined;
  workletUrl: string | undefined;
}

/** The WebSocket path of realtime transcription. */
export const TRANSCRIPTION_PATH = '/v1/realtime-transcription';

function invalid(message: string): TranscriptionError {
  return new TranscriptionError('invalid_options', message);
}

/** Checks the constructor's options; throws `invalid_options` naming the rule broken. */
export function resolveTranscriptionOptions(
  options: TranscriptionClientOptions,
): ResolvedTranscriptionOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalid('TranscriptionClient needs an options object.');
  }
  if (typeof options.token !== 'function') {
    throw invalid('token must be a function returning a fresh token (sync or async).');
  }
  const { language, endpointing, partnerSessionId, interimResults } = options;
  if (
    language !== undefined &&
    (typeof language !== 'string' || !/^[A-Za-z0-9-]{2,35}$/.test(language))
  ) {
    throw invalid(
      `language must be a BCP 47 tag such as "en" or "fr-CA" (got ${JSON.stringify(language)}).`,
    );
  }
  if (endpointing !== undefined && endpointing !== 'vad' && endpointing !== 'manual') {
    throw invalid('endpointing must be vad or manual.');
  }
  if (interimResults !== undefined && typeof interimResults !== 'boolean') {
    throw invalid('interimResults must be a boolean.');
  }
  if (
    partnerSessionId !== undefined &&
    (typeof partnerSessionId !== 'string' ||
      partnerSessionId.length < 1 ||
      partnerSessionId.length > 200)
  ) {
    throw invalid('partnerSessionId must be a string of 1 to 200 characters.');
  }
  if (options.workletUrl !== undefined && typeof options.workletUrl !== 'string') {
    throw invalid('workletUrl must be a URL string.');
  }
  return {
    token: options.token,
    apiOrigin: options.apiOrigin === undefined ? undefined : resolveOrigin(options.apiOrigin),
    language,
    interimResults: interimResults ?? true,
    endpointing: endpointing ?? 'vad',
    partnerSessionId,
    workletUrl: options.workletUrl,
  };
}

function resolveOrigin(value: string): string {
  const origin = httpOriginOf(value);
  if (origin === undefined) {
    throw invalid(`apiOrigin must be an absolute http(s) URL (got ${JSON.stringify(value)}).`);
  }
  return origin;
}

function defaultOrigin(): string {
  const resolved = resolveApiOrigin(undefined);
  if ('problem' in resolved) throw invalid(resolved.problem);
  return resolved.origin;
}

/**
 * The WebSocket URL of a session: `apiOrigin`'s when given, else the token's
 * `websocket_url`, else the default origin's; with the token as `token` query parameter.
 */
export function socketUrl(
  apiOrigin: string | undefined,
  websocketUrl: string | undefined,
  token: string,
): string {
  let url: URL;
  if (apiOrigin === undefined && websocketUrl !== undefined) {
    try {
      url = new URL(websocketUrl);
    } catch {
      throw new TranscriptionError(
        'token_callback_failed',
        `The token's websocket_url is not a URL (${JSON.stringify(websocketUrl)}).`,
      );
    }
  } else {
    url = new URL(TRANSCRIPTION_PATH, apiOrigin ?? defaultOrigin());
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  }
  url.searchParams.set('token', token);
  return url.toString();
}
