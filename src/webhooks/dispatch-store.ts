import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { WebhookResponse } from './dispatch-request.ts';
import { WEBHOOK_TEST_EVENT } from './event-types.ts';

/** A due delivery as the dispatcher needs it. */
export interface DueDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  payload: string;
  attempts: number;
}

/** A delivery this process claimed: it alone sends the attempt until `lockedUntil`. */
export interface ClaimedDelivery extends DueDelivery {
  lockedUntil: string;
}

/**
 * The dispatcher's queries on `webhook_deliveries`. Claims are conditional updates, so
 * several processes may poll one database and each attempt is made by one of them.
 */
export class DispatchStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Pending deliveries due at `now` and not claimed, oldest due first, of endpoints other
   * than `skipEndpoints`. Those of a disabled endpoint wait, except `webhook.test` events,
   * which are sent to it all the same.
   */
  async due(now: Date, limit: number, skipEndpoints: string[] = []): Promise<DueDelivery[]> {
    const at = now.toISOString();
    let query = this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.endpoint_id', 'd.event_id', 'd.event_type', 'd.payload', 'd.attempts'])
      .where('d.state', '=', 'pending')
      .where('d.next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<', at)]))
      .where((eb) => eb.or([eb('e.enabled', '=', 1), eb('d.event_type', '=', WEBHOOK_TEST_EVENT)]))
      .orderBy('d.next_attempt_at')
      .orderBy('d.id')
      .limit(limit);
    if (skipEndpoints.length > 0) query = query.where('d.endpoint_id', 'not in', skipEndpoints);
    const rows = await query.execute();
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      eventId: row.event_id,
      eventType: row.event_type,
      payload: row.payload,
      attempts: row.attempts,
    }));
  }

  /** Claims a due delivery until `lockedUntil`; undefined when another process has it. */
  async claim(
    delivery: DueDelivery,
    now: Date,
    lockedUntil: Date,
  ): Promise<ClaimedDelivery | undefined> {
    const at = now.toISOString();
    const lock = lockedUntil.toISOString();
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: lock })
      .where('id', '=', delivery.id)
      .where('state', '=', 'pending')
      .where('attempts', '=', delivery.attempts)
      .where('next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', at)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? { ...delivery, lockedUntil: lock } : undefined;
  }

  /**
   * Records an attempt and releases the claim: delivered on a 2xx; otherwise due again after
   * the next of `retryDelaysMs`, or failed once they are used up. Returns the new state, or
   * undefined when the claim was lost (the delivery was deleted or taken over).
   */
  async record(
    delivery: ClaimedDelivery,
    attempt: WebhookResponse & { startedAt: Date; finishedAt: Date },
    retryDelaysMs: readonly number[],
  ): Promise<'delivered' | 'pending' | 'failed' | undefined> {
    const attempts = delivery.attempts + 1;
    const delivered = attempt.error === null;
    const retryDelayMs = retryDelaysMs[attempts - 1];
    const state = delivered ? 'delivered' : retryDelayMs !== undefined ? 'pending' : 'failed';
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({
        state,
        attempts,
        next_attempt_at:
          state === 'pending'
            ? new Date(attempt.finishedAt.getTime() + (retryDelayMs ?? 0)).toISOString()
            : null,
        ...(delivered ? { delivered_at: attempt.finishedAt.toISOString() } : {}),
        last_attempt_at: attempt.startedAt.toISOString(),
        last_status: attempt.status,
        last_error: attempt.error,
        last_duration_ms: attempt.durationMs,
        locked_until: null,
      })
      .where('id', '=', delivery.id)
      .where('locked_until', '=', delivery.lockedUntil)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? state : undefined;
  }
}
