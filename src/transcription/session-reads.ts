import type { Kysely, Selectable } from 'kysely';
import { fullPageCursor, olderThan } from '../db/page.ts';
import type { Database, TranscriptionSessionsTable } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import { decodePageCursor, encodePageCursor } from '../http/page-cursor.ts';
import { transcriptionCost } from './pricing.ts';

type Row = Selectable<TranscriptionSessionsTable>;

/** A session as the API shows it (the engine stays internal). */
export function sessionBody(row: Row) {
  return {
    session_id: row.id,
    status: row.status,
    error_code: row.error_code,
    audio_format: row.audio_format as 'pcm_16000' | 'pcm_24000' | 'pcm_48000',
    language: row.language,
    partner_session_id: row.partner_session_id,
    audio_ms: Number(row.audio_ms),
    cost: row.status === 'active' ? null : transcriptionCost(Number(row.charged_millicredits)),
    audit_id: row.audit_id,
    started_at: row.started_at,
    ended_at: row.ended_at,
  };
}

/**
 * One session with its final segments, as `GET .../{sessionId}` answers it (and its webhook
 * events carry it); `not_found` outside the scope. `db` may be a transaction.
 */
export async function readTranscriptionSession(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
) {
  const row = await db
    .selectFrom('transcription_sessions')
    .selectAll()
    .where('id', '=', id)
    .$call(inScope(scope))
    .executeTakeFirst();
  if (!row) throw new ApiError('not_found', 'No such transcription session.');
  const segments = await db
    .selectFrom('transcription_segments')
    .select(['segment_id', 'text', 'start_ms', 'end_ms', 'language'])
    .where('session_id', '=', id)
    .orderBy('segment_id')
    .execute();
  return {
    ...sessionBody(row),
    transcript: segments.map((segment) => segment.text).join(' '),
    segments: segments.map((segment) => ({
      segment_id: Number(segment.segment_id),
      text: segment.text,
      start_ms: Number(segment.start_ms),
      end_ms: Number(segment.end_ms),
      language: segment.language,
    })),
  };
}

/** Reads of the realtime transcription sessions of one workspace and environment. */
export class TranscriptionSessionReads {
  constructor(private readonly db: Kysely<Database>) {}

  /** One session with its final segments; `not_found` outside the scope. */
  get(scope: TenantScope, id: string) {
    return readTranscriptionSession(this.db, scope, id);
  }

  /**
   * One page of the scope's sessions, newest first, older than the position `cursor`
   * names. `next_cursor` is the last one's position when the page is full.
   */
  async list(scope: TenantScope, query: { cursor?: string | undefined; limit: number }) {
    let select = this.db.selectFrom('transcription_sessions').selectAll().$call(inScope(scope));
    if (query.cursor !== undefined) {
      select = select.where(olderThan(decodePageCursor(query.cursor), 'started_at', 'id'));
    }
    const rows = await select
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .execute();
    return {
      sessions: rows.map(sessionBody),
      next_cursor: fullPageCursor(rows, query.limit, (last) =>
        encodePageCursor({ at: last.started_at, id: last.id }),
      ),
    };
  }
}
