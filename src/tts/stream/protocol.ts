import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import { validate } from '../../http/validate.ts';
import type { AlignmentGranularity } from '../providers/alignment.ts';
import {
  alignmentSchema,
  MAX_STREAM_TEXT_EVENT_CHARS,
  refuseServerOwned,
  synthesisParamsSchema,
} from '../schemas.ts';
import { codePointLength } from '../tags.ts';

/** Largest client frame the spec allows (64 KiB); bigger frames close with 1009. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

const startRequestSchema = z.preprocess(
  (value, ctx) => {
    refuseServerOwned(value, ctx, ['request']);
    return value;
  },
  z.strictObject({
    partner_session_id: z.string().min(1).max(200).optional(),
    context_id: z.string().min(1).max(200).optional(),
    voice_id: z.string().min(1).max(200),
    output_format: z.string().min(1).max(64),
    params: synthesisParamsSchema.optional(),
    alignment: alignmentSchema.optional(),
  }),
);

export type StartRequest = {
  partner_session_id?: string | undefined;
  context_id?: string | undefined;
  voice_id: string;
  output_format: string;
  params?: { speed?: number | undefined; voice_tags?: string[] | undefined } | undefined;
  alignment?: AlignmentGranularity | undefined;
};

const CLIENT_EVENT_SCHEMAS = {
  start: z.preprocess(
    (value, ctx) => {
      refuseServerOwned(value, ctx);
      return value;
    },
    z.strictObject({ event: z.literal('start'), request: startRequestSchema }),
  ),
  text: z.strictObject({
    event: z.literal('text'),
    text: z
      .string()
      .min(1, 'text cannot be empty')
      .refine((text) => codePointLength(text) <= MAX_STREAM_TEXT_EVENT_CHARS, {
        message: `a text event is at most ${MAX_STREAM_TEXT_EVENT_CHARS} characters`,
      }),
  }),
  flush: z.strictObject({ event: z.literal('flush') }),
  stop: z.strictObject({ event: z.literal('stop') }),
} as const;

export type ClientEvent =
  | { event: 'start'; request: StartRequest }
  | { event: 'text'; text: string }
  | { event: 'flush' }
  | { event: 'stop' };

/**
 * Validates one parsed JSON frame as a client event; anything else is `invalid_request`
 * naming the problem.
 */
export function parseClientEvent(value: unknown): ClientEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('invalid_request', 'Each frame must be a JSON object with an "event".');
  }
  const event = (value as { event?: unknown }).event;
  if (typeof event !== 'string' || !Object.hasOwn(CLIENT_EVENT_SCHEMAS, event)) {
    throw new ApiError(
      'invalid_request',
      'Unknown event; client events are start, text, flush and stop.',
    );
  }
  const schema = CLIENT_EVENT_SCHEMAS[event as ClientEvent['event']] as z.ZodType;
  return validate(schema, value, event) as ClientEvent;
}
