/**
 * The wire of application sessions (protocol v2) as the backend sees it: topic names, the
 * capability attribute, limits and the JSON bodies of each message. The contract is
 * docs/application-protocol.md; the names and shapes are the shared protocol's, which the
 * package build ships inside this library.
 */
import { APPLICATION_LIMITS, type CancelReason as WorkerCancelReason } from '@awp/protocol';

export type {
  ApplicationWireErrorCode,
  CancelBody,
  CommandBody,
  CommandResultBody,
  ContextMessage,
  InputDecision,
  InputEvent,
  InterruptionEvent,
  JsonValue,
  PreparedReply,
  PrepareReplyEvent,
  ReplyOutcome,
  RequestBody,
  ResultBody,
  ToolCall,
  TranscriptEvent,
  WireError,
} from '@awp/protocol';
export {
  APPLICATION_PROTOCOL_VERSION,
  /**
   * Text-stream topics of the protocol.
   *
   * @example
   * ```ts
   * room.registerTextStreamHandler(TOPICS.request, onRequest);
   * ```
   */
  APPLICATION_TOPICS as TOPICS,
  APPLICATION_VERSION_ATTRIBUTE,
} from '@awp/protocol';

/**
 * The largest body, in UTF-16 characters of its JSON text, either side sends or accepts.
 *
 * @example
 * ```ts
 * if (JSON.stringify(body).length > ENVELOPE_MAX_CHARS) throw new Error('too large');
 * ```
 */
export const ENVELOPE_MAX_CHARS: number = APPLICATION_LIMITS.envelopeChars;

/** Why the worker cancelled a pending callback (reasons of newer workers pass as strings). */
export type CancelReason = WorkerCancelReason | (string & {});
