import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';
import type { StreamingSessionRecord } from './records.ts';

/** What the service measured of a session's speech requests (the ledger's rows). */
export interface StreamingSessionUsage {
  requests: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** Still running. */
  running: number;
  /** Characters synthesized. */
  chars: number;
  /** Encoded playback duration delivered. */
  audio_ms: number;
  /** Charged, in millicredits. */
  millicredits: number;
}

/** A session with its usage and how many events of each type the client reported. */
export interface StreamingSessionReport {
  session: StreamingSessionRecord;
  usage: StreamingSessionUsage;
  eventTypes: Record<string, number>;
}

/**
 * The usage of the speech requests sent with the session's `partner_session_id` in its
 * workspace and environment, one-shot and streaming alike, and the client's event counts.
 */
export async function streamingSessionReport(
  db: Kysely<Database>,
  scope: TenantScope,
  session: StreamingSessionRecord,
): Promise<StreamingSessionReport> {
  const count = (status: string) =>
    sql<number>`sum(case when status = ${status} then 1 else 0 end)`;
  const row = await db
    .selectFrom('synthesis_requests')
    .select([
      sql<number>`count(*)`.as('requests'),
      count('succeeded').as('succeeded'),
      count('failed').as('failed'),
      count('cancelled').as('cancelled'),
      count('started').as('running'),
      sql<number>`coalesce(sum(chars_synthesized), 0)`.as('chars'),
      sql<number>`coalesce(sum(encoded_duration_ms), 0)`.as('audio_ms'),
      sql<number>`coalesce(sum(cost_millicredits), 0)`.as('millicredits'),
    ])
    .$call(inScope(scope))
    .where('partner_session_id', '=', session.partnerSessionId)
    .executeTakeFirstOrThrow();
  const types = await db
    .selectFrom('streaming_session_events')
    .select(['type', sql<number>`count(*)`.as('n')])
    .where('session_id', '=', session.id)
    .groupBy('type')
    .orderBy('type')
    .execute();
  return {
    session,
    usage: {
      requests: Number(row.requests),
      succeeded: Number(row.succeeded ?? 0),
      failed: Number(row.failed ?? 0),
      cancelled: Number(row.cancelled ?? 0),
      running: Number(row.running ?? 0),
      chars: Number(row.chars),
      audio_ms: Number(row.audio_ms),
      millicredits: Number(row.millicredits),
    },
    eventTypes: Object.fromEntries(types.map((t) => [t.type, Number(t.n)])),
  };
}
