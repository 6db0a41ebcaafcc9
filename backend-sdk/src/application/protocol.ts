/**
 * The wire of application sessions (protocol v2) as the backend sees it: topic names, the
 * capability attribute, limits and the JSON bodies of each message. The contract is
 * docs/application-protocol.md; these types are its backend half.
 */

/** A JSON value, the only thing that travels in a body. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/**
 * The protocol version the backend requires of the worker and advertises itself.
 *
 * @example
 * ```ts
 * agent.attributes[APPLICATION_VERSION_ATTRIBUTE] === String(APPLICATION_PROTOCOL_VERSION);
 * ```
 */
export const APPLICATION_PROTOCOL_VERSION = 2;

/**
 * The participant attribute carrying the protocol version (the capability handshake).
 *
 * @example
 * ```ts
 * await room.localParticipant?.setAttributes({ [APPLICATION_VERSION_ATTRIBUTE]: '2' });
 * ```
 */
export const APPLICATION_VERSION_ATTRIBUTE = 'animated-waffle.application.version';

/**
 * The largest body, in UTF-16 characters of its JSON text, either side sends or accepts.
 *
 * @example
 * ```ts
 * if (JSON.stringify(body).length > ENVELOPE_MAX_CHARS) throw new Error('too large');
 * ```
 */
export const ENVELOPE_MAX_CHARS = 256_000;

/**
 * Text-stream topics of the protocol.
 *
 * @example
 * ```ts
 * room.registerTextStreamHandler(TOPICS.request, onRequest);
 * ```
 */
export const TOPICS = {
  /** worker -> backend: a callback. */
  request: 'application.request',
  /** backend -> worker: progress, result or error of a callback. */
  result: 'application.result',
  /** worker -> backend: a pending callback was cancelled. */
  cancel: 'application.cancel',
  /** backend -> worker: update context, request reply, cancel tool. */
  command: 'application.command',
  /** worker -> backend: the answer to a command. */
  commandResult: 'application.command_result',
} as const;

/**
 * Error codes that travel in `error: {code, message}` bodies. The worker's codes are the
 * contract's; `handler_error`, `invalid_result` and `not_implemented` are the ones this
 * library sends for a backend handler that threw, returned a value it cannot send, or is
 * missing.
 *
 * @example
 * ```ts
 * const code: ApplicationWireErrorCode = 'reply_invalidated';
 * ```
 */
export type ApplicationWireErrorCode =
  | 'invalid_request'
  | 'payload_too_large'
  | 'too_many_pending'
  | 'deadline_exceeded'
  | 'duplicate_rejected'
  | 'unknown_tool'
  | 'unknown_call'
  | 'reply_invalidated'
  | 'not_authorized'
  | 'unsupported_worker'
  | 'session_ended'
  | 'handler_error'
  | 'invalid_result'
  | 'not_implemented';

/** An error as it travels on the wire. */
export interface WireError {
  code: ApplicationWireErrorCode | (string & {});
  message: string;
}

/** A finalized user utterance or typed message (`input` callback). */
export interface InputEvent {
  /** Id of the user's message. */
  id: string;
  text: string;
  modality: 'audio' | 'text';
}

/**
 * What the backend decides about an input: `handled` says nothing; `reply` speaks `text` as
 * is, or, with `instructions`, lets the model reply guided by them (`text` is then context).
 */
export type InputDecision =
  | { action: 'handled' }
  | { action: 'reply'; text: string; instructions?: string };

/** A tool call the model made (`tool` callback). */
export interface ToolCall {
  /** The tool-call id; `cancelTool(callId)` names it. */
  callId: string;
  /** One of the tools declared at start. */
  name: string;
  /** The arguments the model produced (JSON, meant to match the tool's `parameters`). */
  arguments: JsonValue;
}

/** A finished transcript line to persist idempotently by `id` (`transcript` callback). */
export interface TranscriptEvent {
  /** Durable message id: the same line may be delivered again after a rejoin. */
  id: string;
  role: 'user' | 'agent';
  text: string;
  /** True when the user interrupted the Agent before the line finished. */
  interrupted: boolean;
}

/** A spoken update from `requestReply` about to be spoken (`prepare_reply` callback). */
export interface PrepareReplyEvent {
  /** The spoken-update id given to `requestReply`. */
  id: string;
}

/** The answer to `prepare_reply`. */
export interface PreparedReply {
  instructions: string;
}

/** `application.request` bodies, one per callback type. */
export type RequestBody =
  | { requestId: string; type: 'input'; input: InputEvent }
  | { requestId: string; type: 'tool'; tool: ToolCall }
  | { requestId: string; type: 'transcript'; transcript: TranscriptEvent }
  | { requestId: string; type: 'prepare_reply'; prepareReply: PrepareReplyEvent };

/** Why the worker cancelled a pending callback. */
export type CancelReason =
  | 'interrupted'
  | 'replaced'
  | 'deadline'
  | 'session_ended'
  | 'backend_cancelled'
  | (string & {});

/** `application.cancel` body. */
export interface CancelBody {
  requestId: string;
  reason: CancelReason;
}

/** `application.result` body. */
export type ResultBody =
  | { requestId: string; type: 'progress'; value: JsonValue }
  | { requestId: string; type: 'result'; value: JsonValue }
  | { requestId: string; type: 'error'; error: WireError };

/** `application.command` bodies. */
export type CommandBody =
  | {
      requestId: string;
      command: 'update_context';
      instructions?: string;
      messages?: ContextMessage[];
    }
  | { requestId: string; command: 'request_reply'; id: string; instructions?: string }
  | { requestId: string; command: 'cancel_tool'; callId: string };

/** `application.command_result` body. */
export type CommandResultBody =
  | { requestId: string; type: 'result'; value: JsonValue }
  | { requestId: string; type: 'error'; error: WireError };

/** A message appended to the conversation by `updateContext`. */
export interface ContextMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

/** What `requestReply` resolves with once the spoken update finished playing. */
export interface ReplyOutcome {
  /** The spoken-update id. */
  id: string;
  /** True when the user interrupted the update. */
  interrupted: boolean;
  /** What was heard: the whole text, or the part spoken before the interruption. */
  spokenText: string;
  completion: 'worker_playout';
}
