import type { Kysely } from 'kysely';
import { randomBase62 } from '../auth/key-format.ts';
import type { Database } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';
import { WEBHOOK_TEST_EVENT, type WebhookEventBody, type WebhookEventType } from './event-types.ts';

export function newEventId(): string {
  return `evt_${randomBase62(24)}`;
}

export function newDeliveryId(): string {
  return `whd_${randomBase62(20)}`;
}

/**
 * Records an event for every enabled endpoint of the scope that subscribes to its type:
 * one pending delivery each, due now, holding the exact body to send. Call it with the
 * transaction that makes the change the event reports, so the change and its deliveries
 * commit together (the jobs process sends them). Returns how many deliveries it wrote.
 */
export async function emitWebhookEvent(
  db: Kysely<Database>,
  scope: TenantScope,
  event: {
    type: WebhookEventType;
    timestamp: string;
    /** The event's `data`, built only when some endpoint subscribes. */
    data: () => Promise<unknown> | unknown;
  },
): Promise<number> {
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .$call(inScope(scope))
    .where('enabled', '=', 1)
    .execute();
  const subscribed = endpoints.filter((row) =>
    (JSON.parse(row.events) as string[]).includes(event.type),
  );
  if (subscribed.length === 0) return 0;
  const body: WebhookEventBody = {
    id: newEventId(),
    type: event.type,
    timestamp: event.timestamp,
    data: await event.data(),
  };
  await insertDeliveries(
    db,
    scope.workspaceId,
    body,
    subscribed.map((row) => row.id),
  );
  return subscribed.length;
}

/** Queues a `webhook.test` event for one endpoint, enabled or not; returns its delivery id. */
export async function emitTestEvent(
  db: Kysely<Database>,
  scope: TenantScope,
  endpointId: string,
  now: Date,
): Promise<string> {
  const body: WebhookEventBody = {
    id: newEventId(),
    type: WEBHOOK_TEST_EVENT,
    timestamp: now.toISOString(),
    data: { webhook_id: endpointId, environment: scope.environment },
  };
  const [id] = await insertDeliveries(db, scope.workspaceId, body, [endpointId]);
  return id as string;
}

async function insertDeliveries(
  db: Kysely<Database>,
  workspaceId: string,
  body: WebhookEventBody,
  endpointIds: string[],
): Promise<string[]> {
  const payload = JSON.stringify(body);
  const now = new Date().toISOString();
  const rows = endpointIds.map((endpointId) => ({
    id: newDeliveryId(),
    endpoint_id: endpointId,
    workspace_id: workspaceId,
    event_id: body.id,
    event_type: body.type,
    payload,
    state: 'pending' as const,
    next_attempt_at: now,
    created_at: now,
  }));
  await db.insertInto('webhook_deliveries').values(rows).execute();
  return rows.map((row) => row.id);
}
