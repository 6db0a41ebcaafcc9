/**
 * The handlers a backend gives {@link ApplicationConnection.join} and the join options.
 */

import type { RequestLedger } from './ledger.ts';
import type { ApplicationLogger } from './logger.ts';
import type {
  InputDecision,
  InputEvent,
  InterruptionEvent,
  PreparedReply,
  PrepareReplyEvent,
  ToolCall,
  TranscriptEvent,
} from './protocol.ts';

/** What every handler receives besides its event. */
export interface CallbackContext {
  /** The protocol request id: stable across re-deliveries, a key for business idempotency. */
  requestId: string;
  /**
   * Aborts when the worker cancels the callback (reason a {@link CallCancelledError}) or
   * `close()` abandons it.
   */
  signal: AbortSignal;
}

/** What a tool handler receives besides the call. */
export interface ToolContext extends CallbackContext {
  /**
   * Reports JSON progress to the worker; the first one makes the call non-blocking (the
   * conversation goes on and the final value is added to the context later). Rejects with
   * `invalid_result` for a value that is not JSON, `payload_too_large` past the envelope
   * limit; resolves without sending once the call was answered or cancelled.
   */
  progress(value: unknown): Promise<void>;
}

/**
 * The backend's side of the callbacks. Each is optional: a missing one answers `error`
 * (`not_implemented`; `unknown_tool` for tools). A handler that throws answers `error` with
 * its message (code `handler_error`, or the code of a thrown `ApplicationError`).
 *
 * @example
 * ```ts
 * const handlers: ApplicationHandlers = {
 *   onInput: () => ({ action: 'handled' }),
 *   onTool: async (call, { progress }) => {
 *     await progress({ stage: 'started' });
 *     return { ok: true };
 *   },
 * };
 * ```
 */
export interface ApplicationHandlers {
  /** A finalized user input, before the model answers: handle it or say what to reply. */
  onInput?(input: InputEvent, context: CallbackContext): InputDecision | Promise<InputDecision>;
  /** A tool call: its return value (any JSON; `undefined` is `null`) is the result. */
  onTool?(call: ToolCall, context: ToolContext): unknown;
  /** A finished transcript line: persist it idempotently by `id`; resolving acknowledges it. */
  onTranscript?(line: TranscriptEvent, context: CallbackContext): void | Promise<void>;
  /** Instructions for a spoken update queued by `requestReply` without its own. */
  onPrepareReply?(
    event: PrepareReplyEvent,
    context: CallbackContext,
  ): PreparedReply | Promise<PreparedReply>;
  /**
   * The Agent's job was lost and a new one resumed the session. Every callback it sent
   * before and this backend had not answered was cancelled just before (its handler's
   * `signal` aborted with a {@link CallCancelledError} of reason `worker_lost`); context
   * added with `updateContext` was lost with the job: send it again if it still applies.
   * Optional: without it the interruption is acknowledged and nothing else happens.
   */
  onInterruption?(event: InterruptionEvent, context: CallbackContext): void | Promise<void>;
}

/** Options of {@link ApplicationConnection.join}. */
export interface JoinOptions {
  /** How long to wait for a worker advertising protocol 2. Default 15,000 ms. */
  agentTimeoutMs?: number;
  /** Default time limit of `updateContext` and `cancelTool`. Default 30,000 ms. */
  commandTimeoutMs?: number | undefined;
  /** Where refusals and delivery failures are reported. Default {@link consoleLogger}. */
  logger?: ApplicationLogger;
  /** The record of callbacks shared across connections. Default the process-wide one. */
  ledger?: RequestLedger;
  /** Aborts the join. */
  signal?: AbortSignal;
  /** Called when the connection is lost (not after `close()`); rejoin with a fresh control. */
  onDisconnected?: () => void;
}
