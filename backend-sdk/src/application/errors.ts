import type { ApplicationWireErrorCode, CancelReason } from './protocol.ts';

/**
 * Codes of failures this library detects on the backend's side rather than receives from
 * the worker or the api.
 */
export type ApplicationLocalErrorCode =
  | 'timeout'
  | 'aborted'
  | 'connection_closed'
  | 'connection_error'
  | 'invalid_response'
  | 'cancelled';

/** Everything an {@link ApplicationError} carries. */
export interface ApplicationErrorInit {
  /** A wire code, an api error code (start) or an {@link ApplicationLocalErrorCode}. */
  code: ApplicationWireErrorCode | ApplicationLocalErrorCode | (string & {});
  message: string;
  /** HTTP status, for failures of the start call. */
  status?: number | undefined;
  /** The api's request id (start) or the protocol `requestId` the failure belongs to. */
  requestId?: string | undefined;
  /** Whether repeating the same call can succeed. */
  retryable?: boolean;
  cause?: unknown;
}

/**
 * Every failure of the application-session API: match on `code`, never on the message.
 * A handler may also throw one to choose the code the worker receives (otherwise a thrown
 * handler answers `handler_error`).
 *
 * @example
 * ```ts
 * try {
 *   await connection.requestReply('order-42-ready');
 * } catch (error) {
 *   if (error instanceof ApplicationError && error.code === 'reply_invalidated') {
 *     // the user spoke first; decide again whether to announce it
 *   }
 * }
 * ```
 * @example
 * ```ts
 * onTool: async (call) => {
 *   if (!allowed(call)) throw new ApplicationError({ code: 'not_authorized', message: 'not yours' });
 *   return book(call.arguments);
 * }
 * ```
 */
export class ApplicationError extends Error {
  readonly code: ApplicationErrorInit['code'];
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly retryable: boolean;

  constructor(init: ApplicationErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApplicationError';
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryable = init.retryable ?? false;
  }
}

/**
 * The abort reason of a handler's `signal` when the worker cancelled its callback
 * (`application.cancel`): `reason` says why (`interrupted`, `replaced`, `deadline`,
 * `session_ended`, `backend_cancelled`).
 *
 * @example
 * ```ts
 * onTool: async (call, { signal }) => {
 *   signal.addEventListener('abort', () => {
 *     if (signal.reason instanceof CallCancelledError) audit(call.callId, signal.reason.reason);
 *   });
 *   return longDispatch(call.arguments, { signal });
 * }
 * ```
 */
export class CallCancelledError extends ApplicationError {
  readonly reason: CancelReason;

  constructor(requestId: string, reason: CancelReason) {
    super({ code: 'cancelled', message: `the worker cancelled the call (${reason})`, requestId });
    this.name = 'CallCancelledError';
    this.reason = reason;
  }
}
