/**
 * The wire of application sessions (protocol v2, docs/application-protocol.md) on the
 * worker's side: its topics, message shapes and limits are the shared protocol's
 * (`@awp/protocol`); incoming messages are checked here with zod, and everything past this
 * file trusts the types.
 */

import { APPLICATION_LIMITS } from '@awp/protocol';
import { z } from 'zod';

export type { CallbackPayload, CancelReason, WireError } from '@awp/protocol';
export { APPLICATION_TOPICS } from '@awp/protocol';

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
