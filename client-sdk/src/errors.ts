import type { ErrorCodeSubset } from '@awp/protocol';

/**
 * Codes the client library itself produces (the api's codes pass through unchanged).
 *
 * - `invalid_options`: a constructor or method argument breaks a rule (the message says which).
 * - `token_expired`: the `sessionToken` callback returned an expired token, or one this client
 *   already used: it must mint a fresh token on every call.
 * - `not_connected`: the method needs a connected conversation.
 * - `already_connected`: `connect()` while connecting or connected.
 * - `wrong_input_mode`: a push-to-talk method while the input mode is `automatic`.
 * - `input_audio_disabled`: a microphone control while `inputAudioEnabled` is false.
 * - `agent_unavailable`: the Agent did not join, left, or crashed.
 * - `connection_failed`: the WebRTC connection could not be made or was lost for good.
 * - `microphone_unavailable`: the browser refused or could not open the microphone.
 * - `network_error`: the session-start request did not reach the api.
 * - `session_callback_failed`: the `sessionToken` or `startSession` callback threw or returned
 *   nothing usable; `cause` holds what it threw.
 * - `protocol_error`: the api or the Agent answered something this library does not understand.
 * - `control_failed`: an Agent control (push-to-talk, input mode, interrupt) failed without a
 *   code of its own (timeout, Agent gone).
 * - `aborted`: `disconnect()` was called while `connect()` was still running.
 */
export type LibraryErrorCode =
  | 'invalid_options'
  | 'token_expired'
  | 'not_connected'
  | 'already_connected'
  | 'wrong_input_mode'
  | 'input_audio_disabled'
  | 'agent_unavailable'
  | 'connection_failed'
  | 'microphone_unavailable'
  | 'network_error'
  | 'session_callback_failed'
  | 'protocol_error'
  | 'control_failed'
  | 'aborted';

/**
 * Codes of the api's error object (docs/errors.md) a conversation can meet: a subset of the
 * api's registry (the shared protocol's `ErrorCode`).
 */
export type ApiErrorCode = ErrorCodeSubset<
  | 'invalid_request'
  | 'unauthorized'
  | 'insufficient_credit'
  | 'organization_suspended'
  | 'organization_account_missing'
  | 'capability_disabled'
  | 'forbidden'
  | 'session_token_agent_mismatch'
  | 'not_found'
  | 'agent_not_api_ready'
  | 'agent_not_published'
  | 'memory_identity_required'
  | 'documents_identity_required'
  | 'calendar_identity_required'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable'
  | 'provider_error'
  | 'provider_unavailable'
  | 'provider_auth_missing'
>;

/**
 * Every code a {@link ConversationError} can carry. Codes the service adds later arrive
 * unchanged, hence the open `string` member.
 */
export type ConversationErrorCode = LibraryErrorCode | ApiErrorCode | (string & {});

/** Fields of a {@link ConversationError} beyond its code and message. */
export interface ConversationErrorInit {
  /** Whether trying again (a new `connect()`, a repeated control) can help. */
  retryable?: boolean;
  /** HTTP status of the api answer, when the error came from one. */
  status?: number;
  /** The api's `request_id`, to quote when reporting a problem. */
  requestId?: string;
  cause?: unknown;
}

/**
 * The one error type of the conversation client (the transcription client has
 * `TranscriptionError`): thrown by methods, rejected by promises and emitted as
 * the `error` event. Match on `code`, never on `message`.
 *
 * @example
 * ```ts
 * try {
 *   await client.connect();
 * } catch (error) {
 *   if (error instanceof ConversationError && error.code === 'token_expired') {
 *     // the sessionToken callback returned a cached token: mint a fresh one per call
 *   }
 * }
 * ```
 */
export class ConversationError extends Error {
  override readonly name = 'ConversationError';
  readonly code: ConversationErrorCode;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly requestId: string | undefined;

  constructor(code: ConversationErrorCode, message: string, init: ConversationErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.retryable = init.retryable ?? false;
    this.status = init.status;
    this.requestId = init.requestId;
  }
}
