import { z } from 'zod';
import { timeZoneSchema } from '../agents/capabilities/calendar/time-zone-schema.ts';
import type { LlmCharge } from '../billing/llm-ledger.ts';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import type { LlmUsage } from '../llm/provider.ts';
import type { MessageRecord } from './conversation-store.ts';
import type { PublicMessage } from './conversations.ts';

/** Longest user message, in characters. */
export const MAX_MESSAGE_CHARS = 10_000;

export const sendMessageBodySchema = z
  .strictObject({
    conversation_id: z
      .uuid()
      .optional()
      .describe('Continue this conversation; omit to open a new one (with the card `first_mes`).'),
    end_user_id: z
      .uuid()
      .optional()
      .describe(
        'Your end user (UUID). Conversations are scoped to it. Required when the published Agent has memory, documents or calendar enabled.',
      ),
    user_name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'What `{{user}}` stands for in the card; kept for the conversation. Default `User`.',
      ),
    time_zone: timeZoneSchema()
      .optional()
      .describe(
        'The end user’s IANA time zone (`Europe/Paris`): the calendar capability reads and books times in it.',
      ),
    text: z.string().min(1).max(MAX_MESSAGE_CHARS).describe('What the end user says.'),
    message_id: z
      .uuid()
      .optional()
      .describe(
        'Your id of this message (UUID). A retry with the same id answers the first answer again without charging twice.',
      ),
  })
  .meta({ title: 'SendMessageRequest' });

export type SendMessageBody = z.infer<typeof sendMessageBodySchema>;

export const listMessagesQuerySchema = z.strictObject({
  conversation_id: z.uuid().describe('The conversation to list.'),
  end_user_id: z.uuid().optional().describe('The end user the conversation belongs to, if any.'),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.uuid().optional().describe('`next_cursor` of the previous page.'),
});

const chargeSchema = z
  .object({
    credits: z.number().describe('What the turn cost, in credits: the measure.'),
    amount: z.number().describe('Deprecated projection: credits / 1000; not a payment amount.'),
    currency: z.literal('USD').describe('Deprecated projection.'),
  })
  .meta({ title: 'Charge' });

export const usageSchema = z
  .object({
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    charge: chargeSchema,
  })
  .meta({ title: 'MessageUsage' });

export const messageSchema = z
  .object({
    id: z.string().describe('Durable message id (UUID).'),
    role: z.enum(['user', 'assistant']),
    text: z.string(),
    created_at: z.string(),
  })
  .meta({ title: 'Message' });

export const sendMessageResponseSchema = z
  .object({
    conversation_id: z.string(),
    first_message: messageSchema
      .nullable()
      .describe('The opening message (`first_mes`) when this request opened the conversation.'),
    user_message: messageSchema,
    message: messageSchema.describe("The Agent's answer."),
    usage: usageSchema,
  })
  .meta({ title: 'SendMessageResponse' });

export const messageListSchema = z
  .object({
    conversation_id: z.string(),
    messages: z.array(
      messageSchema.extend({
        usage: usageSchema.nullable().describe('On answers: what the turn used and cost.'),
      }),
    ),
    next_cursor: z.string().nullable(),
  })
  .meta({ title: 'MessageList' });

/** Server-sent events of a streamed answer, in order. */
export const messageEventsSchema = z
  .discriminatedUnion('event', [
    z.object({
      event: z.literal('conversation'),
      data: z.object({
        conversation_id: z.string(),
        first_message: messageSchema.nullable(),
        user_message: messageSchema,
      }),
    }),
    z.object({ event: z.literal('delta'), data: z.object({ text: z.string() }) }),
    z.object({
      event: z.literal('tool_call'),
      data: z
        .object({ id: z.string(), name: z.string() })
        .describe('The model called a tool of the Agent’s capabilities (memory, documents, ...).'),
    }),
    z.object({
      event: z.literal('tool_result'),
      data: z
        .object({ id: z.string(), name: z.string(), ok: z.boolean() })
        .describe('The tool call ended; `ok` false when it failed (the model is told why).'),
    }),
    z.object({ event: z.literal('message'), data: messageSchema }),
    z.object({ event: z.literal('usage'), data: usageSchema }),
    z.object({ event: z.literal('done'), data: z.object({ conversation_id: z.string() }) }),
    z.object({
      event: z.literal('error'),
      data: z.object({
        event: z.literal('error'),
        request_id: z.string(),
        code: z.string(),
        retryable: z.boolean(),
        detail: z.string(),
      }),
    }),
  ])
  .meta({ title: 'MessageStreamEvent' });

/** `usage` of a turn: tokens and the charge in credits, with the deprecated USD projection. */
export function usageBody(usage: LlmUsage, charge: Pick<LlmCharge, 'chargedMillicredits'>) {
  const millicredits = charge.chargedMillicredits;
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    charge: {
      credits: millicredits / MILLICREDITS_PER_CREDIT,
      // Divided once, so no second rounding: credits / 1000.
      amount: millicredits / (MILLICREDITS_PER_CREDIT * 1000),
      currency: 'USD' as const,
    },
  };
}

export function storedMessageBody(message: MessageRecord) {
  return {
    id: message.id,
    role: message.role,
    text: message.text,
    created_at: message.createdAt,
    usage: message.usage
      ? usageBody(message.usage, { chargedMillicredits: message.usage.costMillicredits })
      : null,
  };
}

export function messageBody(message: PublicMessage) {
  return { id: message.id, role: message.role, text: message.text, created_at: message.created_at };
}
