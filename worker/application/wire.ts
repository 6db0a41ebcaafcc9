/**
 * The wire of application sessions (protocol v2, docs/application-protocol.md): topics,
 * message shapes, error codes and the envelope limit. Incoming messages are checked here
 * with zod; everything past this file trusts the types.
 */
import { z } from 'zod';
import { APPLICATION_LIMITS } from '../../src/worker-boundary/index.ts';

/** Text-stream topics, one per direction and kind of message. */
export const APPLICATION_TOPICS = {
  request: 'application.request',
  result: 'application.result',
  cancel: 'application.cancel',
  command: 'application.command',
  commandResult: 'application.command_result',
} as const;

/** Error codes on the wire. */
export type WireErrorCode =
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

export interface WireError {
  code: WireErrorCode | (string & {});
  message: string;
}

/** Why the worker cancels a request (`application.cancel`). */
export type CancelReason =
  | 'interrupted'
  | 'replaced'
  | 'deadline'
  | 'session_ended'
  | 'backend_cancelled';

/** The callbacks the worker sends on `application.request` (without `requestId`). */
export type CallbackPayload =
  | { type: 'input'; input: { id: string; text: string; modality: 'audio' | 'text' } }
  | { type: 'tool'; tool: { callId: string; name: string; arguments: unknown } }
  | {
      type: 'transcript';
      transcript: { id: string; role: 'user' | 'agent'; text: string; interrupted: boolean };
    }
  | { type: 'prepare_reply'; prepareReply: { id: string } };

/** Thrown before sending a body longer than the envelope limit. */
export class PayloadTooLargeError extends Error {
  readonly code = 'payload_too_large';
  constructor(readonly chars: number) {
    super(`The message has ${chars} characters; the limit is ${APPLICATION_LIMITS.envelopeChars}.`);
    this.name = 'PayloadTooLargeError';
  }
}

/**
 * The JSON text of a message. `undefined` values become `null` (a backend's undefined result
 * still answers), and a body over the envelope limit is refused before it is sent.
 */
export function encodeMessage(body: Record<string, unknown>): string {
  const text = JSON.stringify(body, (_key, value: unknown) => (value === undefined ? null : value));
  if (text.length > APPLICATION_LIMITS.envelopeChars) throw new PayloadTooLargeError(text.length);
  return text;
}

const uuid = z.uuid();
const wireError = z.object({ code: z.string().min(1), message: z.string() });

/** `application.result`: a backend's answer to one callback. */
export const resultMessageSchema = z.object({
  requestId: uuid,
  type: z.enum(['progress', 'result', 'error']),
  value: z.unknown().optional(),
  error: wireError.optional(),
});
export type ResultMessage = z.infer<typeof resultMessageSchema>;

const chatMessage = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.string(),
});

/** `application.command`: what a backend asks the worker to do. */
export const commandMessageSchema = z.discriminatedUnion('command', [
  z.object({
    requestId: uuid,
    command: z.literal('update_context'),
    instructions: z.string().optional(),
    messages: z.array(chatMessage).optional(),
  }),
  z.object({
    requestId: uuid,
    command: z.literal('request_reply'),
    id: z.string().min(1).max(200),
    instructions: z.string().optional(),
  }),
  z.object({ requestId: uuid, command: z.literal('cancel_tool'), callId: z.string().min(1) }),
]);
export type CommandMessage = z.infer<typeof commandMessageSchema>;

/** Parses JSON text; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
