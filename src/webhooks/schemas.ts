import { z } from 'zod';
import { pageCursorSchema } from '../http/page-cursor.ts';
import { MAX_ENDPOINTS_PER_SCOPE } from './endpoints.ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from './event-types.ts';

const eventTypeSchema = z
  .enum(WEBHOOK_EVENT_TYPES)
  .describe('An event type the endpoint receives.')
  .meta({ title: 'WebhookEventType' });

const writable = {
  url: z
    .string()
    .max(2048)
    .meta({ format: 'uri' })
    .describe(
      'Absolute http or https URL the events are POSTed to, without a user name or password; at most 2,048 characters.',
    ),
  events: z
    .array(eventTypeSchema)
    .min(1)
    .describe('Event types to deliver (at least one; repeats are kept once).'),
  description: z.string().max(200).describe('Free text for people, at most 200 characters.'),
  enabled: z.boolean().describe('Deliver events to the endpoint. Default true.'),
};

export const webhookCreateSchema = z
  .strictObject({
    url: writable.url,
    events: writable.events,
    description: writable.description.optional(),
    enabled: writable.enabled.optional(),
  })
  .meta({
    title: 'WebhookEndpointCreate',
    description: `A workspace has at most ${MAX_ENDPOINTS_PER_SCOPE} endpoints per environment.`,
  });

export const webhookUpdateSchema = z.strictObject(writable).partial().meta({
  title: 'WebhookEndpointUpdate',
  description: 'The fields to change; `{}` changes nothing.',
});

export type WebhookCreateBody = z.infer<typeof webhookCreateSchema>;
export type WebhookUpdateBody = z.infer<typeof webhookUpdateSchema>;

/** Body of the POSTs that take none: empty, or `{}`. */
export const emptyBodySchema = z.strictObject({});

export const webhookEndpointSchema = z
  .object({
    id: z.string().describe('Endpoint id (`wh_...`).'),
    url: z.string(),
    description: z.string(),
    events: z.array(eventTypeSchema),
    enabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ title: 'WebhookEndpoint' });

const secretSchema = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
  .describe(
    'Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. Shown only here; store it.',
  );

export const webhookCreatedSchema = webhookEndpointSchema
  .extend({ secret: secretSchema })
  .meta({ title: 'WebhookEndpointCreated' });

export const webhookListSchema = z.object({
  webhooks: z.array(webhookEndpointSchema).describe('Oldest first.'),
});

export const webhookSecretSchema = z.object({ secret: secretSchema });

const deliveryStateSchema = z
  .enum(['pending', 'delivered', 'failed'])
  .describe(
    '`pending`: due or being retried; `delivered`: the endpoint answered 2xx; `failed`: every attempt failed.',
  );

const eventBodySchema = z
  .object({
    id: z.string().describe('Event id (`evt_...`); also the `webhook-id` header.'),
    type: z.enum([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT]),
    timestamp: z.string().describe('When the event happened (ISO 8601, UTC).'),
    data: z.record(z.string(), z.unknown()).describe("The event's data; its shape is per type."),
  })
  .meta({ title: 'WebhookEvent' });

export const webhookDeliverySchema = z
  .object({
    id: z.string().describe('Delivery id (`whd_...`).'),
    webhook_id: z.string(),
    event_id: z.string().describe('The event id, the same on every attempt (`webhook-id`).'),
    event_type: z.enum([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT]),
    state: deliveryStateSchema,
    attempts: z.number().int().min(0).describe('Attempts made since the last (re)delivery.'),
    next_attempt_at: z.string().nullable().describe('When the next attempt is due.'),
    last_attempt_at: z.string().nullable(),
    last_status: z
      .number()
      .int()
      .nullable()
      .describe("HTTP status of the last attempt's answer; null when none came."),
    last_error: z.string().nullable().describe('Why the last attempt failed.'),
    last_duration_ms: z.number().int().nullable(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
    payload: eventBodySchema.describe('The exact body sent and signed.'),
  })
  .meta({ title: 'WebhookDelivery' });

export const webhookDeliveryListSchema = z.object({
  deliveries: z.array(webhookDeliverySchema).describe('Newest first.'),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as `cursor` for older deliveries; null on the last page.'),
});

/** A page position among an endpoint's deliveries (`next_cursor`). */
export const deliveryCursorSchema = pageCursorSchema(
  'whd_[0-9A-Za-z]{20}',
  'deliveries of this endpoint',
);

export const webhookDeliveryQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: deliveryCursorSchema.optional(),
  state: deliveryStateSchema.optional().describe('Only deliveries in this state.'),
});
