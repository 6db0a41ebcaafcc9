import { type Kysely, sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { isUniqueViolation } from '../agents/unique-violation.ts';
import type { Database, StreamingSessionStatus } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import type {
  StreamingEventInput,
  StreamingEventRecord,
  StreamingSessionRecord,
} from './records.ts';
import { emitStreamingSessionEvent } from './session-events.ts';

/** Events one session keeps; a batch that would pass it is refused whole. */
export const MAX_EVENTS_PER_SESSION = 10_000;
/** How long after its end a session still takes events (a client flushing its queue). */
export const EVENTS_AFTER_END_MS = 10 * 60_000;

export type {
  StreamingEventInput,
  StreamingEventRecord,
  StreamingSessionRecord,
} from './records.ts';

type SessionRow = Database['streaming_sessions'];

/**
 * `streaming_sessions` and their events. A session is found by id within its workspace
 * and environment only; its partner id is unique there. Creating and ending a session
 * write its webhook events in the same transaction.
 */
export class StreamingSessionStore {
  constructor(private readonly db: Kysely<Database>) {}

  async create(
    scope: TenantScope,
    input: {
      apiKeyId: string | null;
      partnerSessionId?: string;
      metadata: Record<string, unknown>;
    },
  ): Promise<StreamingSessionRecord> {
    const id = uuidv7();
    const now = new Date().toISOString();
    const row: SessionRow = {
      id,
      workspace_id: scope.workspaceId,
      environment: scope.environment,
      api_key_id: input.apiKeyId,
      partner_session_id: input.partnerSessionId ?? id,
      status: 'active',
      metadata: JSON.stringify(input.metadata),
      event_count: 0,
      created_at: now,
      updated_at: now,
      ended_at: null,
    };
    const record = toRecord(row);
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('streaming_sessions').values(row).execute();
        await emitStreamingSessionEvent(trx, scope, 'streaming_session.started', record);
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ApiError(
          'conflict',
          `A streaming session with partner_session_id ${row.partner_session_id} already exists.`,
        );
      }
      throw error;
    }
    return record;
  }

  async get(scope: TenantScope, id: string): Promise<StreamingSessionRecord | undefined> {
    const row = await this.db
      .selectFrom('streaming_sessions')
      .selectAll()
      .$call(inScope(scope))
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** Newest first, after the session `cursor` names, at most `limit`. */
  async list(
    scope: TenantScope,
    options: { status?: StreamingSessionStatus | undefined; afterId?: string; limit: number },
  ): Promise<StreamingSessionRecord[]> {
    let query = this.db.selectFrom('streaming_sessions').selectAll().$call(inScope(scope));
    if (options.status) query = query.where('status', '=', options.status);
    if (options.afterId) query = query.where('id', '<', options.afterId);
    const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map(toRecord);
  }

  /**
   * Changes metadata and/or ends the session. Ending is once: the first end is kept, writes
   * the `streaming_session.ended` webhook event, and a session never becomes active again
   * (`409 conflict`).
   */
  async update(
    scope: TenantScope,
    id: string,
    change: { status?: StreamingSessionStatus; metadata?: Record<string, unknown> },
  ): Promise<StreamingSessionRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('streaming_sessions')
        .selectAll()
        .$call(inScope(scope))
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) return undefined;
      if (change.status === 'active' && row.status === 'ended') {
        throw new ApiError('conflict', 'The streaming session has ended; open a new one.');
      }
      const now = new Date().toISOString();
      const ending = change.status === 'ended' && row.status === 'active';
      const next: SessionRow = {
        ...row,
        ...(change.metadata ? { metadata: JSON.stringify(change.metadata) } : {}),
        ...(ending ? { status: 'ended' as const, ended_at: now } : {}),
        updated_at: now,
      };
      await trx
        .updateTable('streaming_sessions')
        .set({
          metadata: next.metadata,
          status: next.status,
          ended_at: next.ended_at,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      const record = toRecord(next);
      if (ending) await emitStreamingSessionEvent(trx, scope, 'streaming_session.ended', record);
      return record;
    });
  }

  /**
   * Appends events in the order given, numbered after the session's last one. Refused
   * (`409 conflict`) after {@link EVENTS_AFTER_END_MS} past the session's end or beyond
   * {@link MAX_EVENTS_PER_SESSION}. Returns their numbers.
   */
  async appendEvents(
    scope: TenantScope,
    id: string,
    events: readonly StreamingEventInput[],
  ): Promise<{ first: number; last: number } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      // The counter moves first: concurrent batches of one session wait for each other.
      const moved = await trx
        .updateTable('streaming_sessions')
        .set({
          event_count: sql<number>`event_count + ${events.length}`,
          updated_at: new Date().toISOString(),
        })
        .$call(inScope(scope))
        .where('id', '=', id)
        .returning(['event_count', 'status', 'ended_at'])
        .executeTakeFirst();
      if (!moved) return undefined;
      const count = Number(moved.event_count);
      if (moved.status === 'ended' && moved.ended_at !== null) {
        const closedFor = Date.now() - Date.parse(moved.ended_at);
        if (closedFor > EVENTS_AFTER_END_MS) {
          throw new ApiError('conflict', 'The streaming session ended; it takes no more events.');
        }
      }
      if (count > MAX_EVENTS_PER_SESSION) {
        throw new ApiError(
          'conflict',
          `A streaming session keeps at most ${MAX_EVENTS_PER_SESSION} events.`,
        );
      }
      const first = count - events.length + 1;
      const receivedAt = new Date().toISOString();
      await trx
        .insertInto('streaming_session_events')
        .values(
          events.map((event, index) => ({
            id: uuidv7(),
            session_id: id,
            seq: first + index,
            type: event.type,
            occurred_at: event.occurredAt,
            request_id: event.requestId,
            data: event.data === null ? null : JSON.stringify(event.data),
            received_at: receivedAt,
          })),
        )
        .execute();
      return { first, last: count };
    });
  }

  /** Events after number `afterSeq`, in order, at most `limit`. */
  async events(
    sessionId: string,
    options: { afterSeq: number; limit: number; type?: string | undefined },
  ): Promise<StreamingEventRecord[]> {
    let query = this.db
      .selectFrom('streaming_session_events')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('seq', '>', options.afterSeq);
    if (options.type) query = query.where('type', '=', options.type);
    const rows = await query.orderBy('seq').limit(options.limit).execute();
    return rows.map((row) => ({
      id: row.id,
      seq: Number(row.seq),
      type: row.type,
      occurredAt: row.occurred_at,
      requestId: row.request_id,
      data: row.data === null ? null : (JSON.parse(row.data) as Record<string, unknown>),
      receivedAt: row.received_at,
    }));
  }
}

function toRecord(row: SessionRow): StreamingSessionRecord {
  return {
    id: row.id,
    partnerSessionId: row.partner_session_id,
    status: row.status,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    eventCount: Number(row.event_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
  };
}
