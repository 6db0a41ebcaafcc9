import type { Kysely, Selectable } from 'kysely';
import { lookahead, olderThan, takePage } from '../db/page.ts';
import type { Database, WebhookDeliveriesTable, WebhookDeliveryState } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import { decodePageCursor, encodePageCursor } from '../http/page-cursor.ts';

/** A delivery as callers see it: the event, its state and its last attempt. */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  state: WebhookDeliveryState;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  deliveredAt: string | null;
  createdAt: string;
  /** The exact body sent (parsed). */
  payload: unknown;
}

export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  /** The last delivery's position when older ones remain; pass it as `cursor`. */
  nextCursor: string | null;
}

/** Deliveries of one endpoint, newest first, and manual redelivery. */
export class WebhookDeliveries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(
    scope: TenantScope,
    endpointId: string,
    options: { limit: number; cursor?: string | undefined; state?: WebhookDeliveryState },
  ): Promise<DeliveryPage> {
    await requireEndpoint(this.db, scope, endpointId);
    let query = this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(lookahead(options.limit));
    if (options.state) query = query.where('state', '=', options.state);
    if (options.cursor !== undefined) {
      query = query.where(olderThan(decodePageCursor(options.cursor), 'created_at', 'id'));
    }
    const page = takePage(await query.execute(), options.limit, (last) =>
      encodePageCursor({ at: last.created_at, id: last.id }),
    );
    return { deliveries: page.rows.map(toDelivery), nextCursor: page.nextCursor };
  }

  async get(scope: TenantScope, endpointId: string, id: string): Promise<WebhookDelivery> {
    await requireEndpoint(this.db, scope, endpointId);
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    if (!row) throw new ApiError('not_found', `No delivery ${id} of this webhook endpoint.`);
    return toDelivery(row);
  }

  /**
   * Sends a delivered or failed event again, now, with a fresh retry schedule; a pending
   * one is made due now. The body and `webhook-id` stay, so receivers see the same event.
   */
  async redeliver(scope: TenantScope, endpointId: string, id: string): Promise<WebhookDelivery> {
    await this.get(scope, endpointId, id);
    await this.db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', attempts: 0, next_attempt_at: this.now().toISOString() })
      .where('id', '=', id)
      .execute();
    return this.get(scope, endpointId, id);
  }
}

/**
 * Deletes up to `limit` deliveries that ended (delivered or failed) and were made before
 * `cutoff`, oldest first; pending ones stay until they end. Returns how many it deleted.
 * Each row is deleted once however many processes sweep at the same time.
 */
export async function expireDeliveriesBefore(
  db: Kysely<Database>,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('created_at', '<', cutoff.toISOString())
    .where('state', 'in', ['delivered', 'failed'])
    .orderBy('created_at')
    .limit(limit)
    .execute();
  if (rows.length === 0) return 0;
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .where('state', 'in', ['delivered', 'failed'])
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

async function requireEndpoint(
  db: Kysely<Database>,
  scope: TenantScope,
  endpointId: string,
): Promise<void> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('id', '=', endpointId)
    .$call(inScope(scope))
    .executeTakeFirst();
  if (!row)
    throw new ApiError('not_found', `No webhook endpoint ${endpointId} in this environment.`);
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
    lastDurationMs: row.last_duration_ms,
    deliveredAt: row.delivered_at,
    createdAt: row.created_at,
    payload: JSON.parse(row.payload),
  };
}

/** The position of a page's last row when more rows follow it. */
