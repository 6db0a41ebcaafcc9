import type { ErrorCodeSubset } from '@awp/protocol';

/**
 * Codes the transcription client itself produces (the api's codes pass through unchanged).
 *
 * - `invalid_options`: a constructor or method argument breaks a rule (the message says which).
 * - `token_expired`: the `token` callback returned a token this client already used, or one
 *   the api refused after its expiry: it must mint a fresh token on every call.
 * - `token_callback_failed`: the `token` callback threw or returned nothing usable; `cause`
 *   holds what it threw.
 * - `already_connected`: `start()` while a session is starting, running or stopping.
 * - `not_connected`: `flush()` or `stop()` without a session.
 * - `microphone_unavailable`: the browser refused or could not open the microphone.
 * - `audio_unavailable`: the page cannot process audio (no AudioWorklet, a
 *   Content-Security-Policy that refuses the worklet, a `mediaStream` without audio track).
 * - `audio_source_ended`: the captured track ended by itself (device unplugged, permission
 *   revoked, the source of an app's stream ended); the session was stopped in order.
 * - `connection_failed`: the WebSocket could not be opened (the api refused the token or the
 *   page's Origin, or could not be reached: browsers do not tell which), the session did not
 *   start in time, the connection was lost, or it could not carry the audio in real time.
 * - `protocol_error`: the api sent something this library does not understand.
 * - `aborted`: `close()` ended the session before the call settled.
 */
export type TranscriptionLibraryErrorCode =
  | 'invalid_options'
  | 'token_expired'
  | 'token_callback_failed'
  | 'already_connected'
  | 'not_connected'
  | 'microphone_unavailable'
  | 'audio_unavailable'
  | 'audio_source_ended'
  | 'connection_failed'
  | 'protocol_error'
  | 'aborted';

/**
 * Codes of the api's `error` event (docs/errors.md) a transcription session can meet: a
 * subset of the api's registry (the shared protocol's `ErrorCode`).
 */
export type TranscriptionApiErrorCode = ErrorCodeSubset<
  | 'invalid_request'
  | 'insufficient_credit'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable'
  | 'provider_error'
  | 'provider_unavailable'
  | 'provider_auth_missing'
>;

/**
 * Every code a {@link TranscriptionError} can carry. Codes the service adds later arrive
 * unchanged, hence the open `string` member.
 */
export type TranscriptionErrorCode =
  | TranscriptionLibraryErrorCode
  | TranscriptionApiErrorCode
  | (string & {});

/** Fields of a {@link TranscriptionError} beyond its code and message. */
export interface TranscriptionErrorInit {
  /** Whether trying again (a new `start()` with a fresh token) can help. */
  retryable?: boolean;
  /** The session the api had started, when it had. */
  sessionId?: string;
  /** The api's `request_id`, to quote when reporting a problem. */
  requestId?: string;
  cause?: unknown;
}

/**
 * The error type of {@link TranscriptionClient}: thrown by methods, rejected by promises and
 * emitted as the `error` event. Match on `code`, never on `message`.
 *
 * @example
 * ```ts
 * try {
 *   await transcription.start();
 * } catch (error) {
 *   if (error instanceof TranscriptionError && error.code === 'token_expired') {
 *     // the token callback returned a cached token: mint a fresh one per call
 *   }
 * }
 * ```
 */
export class TranscriptionError extends Error {
  override readonly name = 'TranscriptionError';
  readonly code: TranscriptionErrorCode;
  readonly retryable: boolean;
  readonly sessionId: string | undefined;
  readonly requestId: string | undefined;

  constructor(code: TranscriptionErrorCode, message: string, init: TranscriptionErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.retryable = init.retryable ?? false;
    this.sessionId = init.sessionId;
    this.requestId = init.requestId;
  }
}

/** A `TranscriptionError` as is; anything else as a retryable one with code `fallback`. */
export function toTranscriptionError(error: unknown, fallback: string): TranscriptionError {
  if (error instanceof TranscriptionError) return error;
  return new TranscriptionError(fallback, error instanceof Error ? error.message : String(error), {
    cause: error,
    retryable: true,
  });
}
