/**
 * The wire of backend-owned application sessions (protocol v2, docs/application-protocol.md):
 * the capability handshake, the text-stream topics, the limits and the JSON body of each
 * message, as the api, the agent worker and the server SDK all see them.
 */

/** A JSON value, the only thing that travels in a body. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** The protocol version the worker advertises and backends require. */
export const APPLICATION_PROTOCOL_VERSION = 2;

/** The participant attribute carrying the protocol version (the capability handshake). */
export const APPLICATION_VERSION_ATTRIBUTE = 'animated-waffle.application.version';

/** Limits of the spec ("Limits", application rows). */
export const APPLICATION_LIMITS = {
  /** The start request's body, in bytes. */
  startBodyBytes: 256 * 1024,
  historyMessages: 200,
  tools: 64,
  /** The largest body, in UTF-16 characters of its JSON text, either side sends or accepts. */
  envelopeChars: 256_000,
  /** Callbacks the worker keeps waiting on a backend's answer at once. */
  pendingCalls: 128,
  firstResponseMs: 60_000,
  /** How long a backend's control credential lets it join the room. */
  controlJoinWindowMs: 5 * 60_000,
} as const;

/** Text-stream topics, one per direction and kind of message. */
export const APPLICATION_TOPICS = {
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

/** Error codes the worker sends in `error: {code, message}` bodies. */
export type WorkerWireErrorCode =
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
  | 'session_ended';

/**
 * Every error code of the wire: the worker's, and the ones a backend library sends for a
 * handler that threw (`handler_error`), returned a value it cannot send (`invalid_result`)
 * or is missing (`not_implemented`).
 */
export type ApplicationWireErrorCode =
  | WorkerWireErrorCode
  | 'handler_error'
  | 'invalid_result'
  | 'not_implemented';

/** An error as it travels on the wire; codes of newer peers pass as strings. */
export interface WireError {
  code: ApplicationWireErrorCode | (string & {});
  message: string;
}

/**
 * Why the worker cancels a pending callback (`application.cancel`); `worker_lost`: the
 * Agent's job was lost and a new one resumed the session (the `interruption` callback
 * cancels every earlier callback still pending at once, without a cancel of its own).
 */
export type CancelReason =
  | 'interrupted'
  | 'replaced'
  | 'deadline'
  | 'session_ended'
  | 'backend_cancelled'
  | 'worker_lost';

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
  /** The tool-call id; `cancel_tool` names it. */
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

/** A spoken update from `request_reply` about to be spoken (`prepare_reply` callback). */
export interface PrepareReplyEvent {
  /** The spoken-update id given to `request_reply`. */
  id: string;
}

/** The answer to `prepare_reply`. */
export interface PreparedReply {
  instructions: string;
}

/**
 * The Agent's job was lost (its process or worker died) and a new job resumed the session
 * from the stored transcript (`interruption` callback, the first the new job sends). Every
 * callback sent before it that the backend has not answered is cancelled (`worker_lost`):
 * answers to them are ignored. Context the backend added with `update_context` was lost
 * with the job; the backend sends it again if it still applies.
 */
export interface InterruptionEvent {
  reason: 'worker_lost';
}

/** `application.request` bodies, one per callback type. */
export type RequestBody =
  | { requestId: string; type: 'input'; input: InputEvent }
  | { requestId: string; type: 'tool'; tool: ToolCall }
  | { requestId: string; type: 'transcript'; transcript: TranscriptEvent }
  | { requestId: string; type: 'prepare_reply'; prepareReply: PrepareReplyEvent }
  | { requestId: string; type: 'interruption'; interruption: InterruptionEvent };

/** A callback as the worker builds it, before it is given its `requestId`. */
export type CallbackPayload = RequestBody extends infer Body
  ? Body extends RequestBody
    ? Omit<Body, 'requestId'>
    : never
  : never;

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

/** A message appended to the conversation by `update_context`. */
export interface ContextMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

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

/** The value of a `request_reply` command's result, once the spoken update finished playing. */
export interface ReplyOutcome {
  /** The spoken-update id. */
  id: string;
  /** True when the user interrupted the update. */
  interrupted: boolean;
  /** What was heard: the whole text, or the part spoken before the interruption. */
  spokenText: string;
  completion: 'worker_playout';
}
