import type { Kysely } from 'kysely';
import { lookahead, takePage } from '../db/page.ts';
import type { Database, StreamingSessionStatus } from '../db/schema.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import { streamingSessionReport } from './report.ts';
import { eventBody, sessionBody } from './schemas.ts';
import type { StreamingSessionRecord, StreamingSessionStore } from './store.ts';

/**
 * Reads of the streaming sessions of one workspace and environment, as the API shows
 * them: pages of sessions newest first with their usage, one session, and its events in
 * the order received. Another scope's session is `404 not_found`.
 */
export class StreamingSessionReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: StreamingSessionStore,
  ) {}

  /** The session as the API shows it: its usage and event counts. */
  async body(scope: TenantScope, session: StreamingSessionRecord) {
    return sessionBody(await streamingSessionReport(this.db, scope, session));
  }

  /** One page, newest first, older than the session `cursor` names; `next_cursor` when more remain. */
  async list(
    scope: TenantScope,
    query: {
      status?: StreamingSessionStatus | undefined;
      cursor?: string | undefined;
      limit: number;
    },
  ) {
    const rows = await this.store.list(scope, {
      status: query.status,
      ...(query.cursor ? { afterId: query.cursor.toLowerCase() } : {}),
      limit: lookahead(query.limit),
    });
    const page = takePage(rows, query.limit, (last) => last.id);
    const sessions = [];
    for (const session of page.rows) sessions.push(await this.body(scope, session));
    return { sessions, next_cursor: page.nextCursor };
  }

  /** One session of the scope; `404 not_found` for any other id. */
  async find(scope: TenantScope, id: string): Promise<StreamingSessionRecord> {
    const session = await this.store.get(scope, id.toLowerCase());
    if (!session) throw new ApiError('not_found', `No streaming session ${id}.`);
    return session;
  }

  /** One page of the session's events in the order received, after number `cursor`. */
  async events(
    scope: TenantScope,
    id: string,
    query: { cursor?: string | undefined; limit: number; type?: string | undefined },
  ) {
    const session = await this.find(scope, id);
    const rows = await this.store.events(session.id, {
      afterSeq: query.cursor ? Number(query.cursor) : 0,
      limit: lookahead(query.limit),
      type: query.type,
    });
    const page = takePage(rows, query.limit, (last) => String(last.seq));
    return {
      session_id: session.id,
      events: page.rows.map(eventBody),
      next_cursor: page.nextCursor,
    };
  }
}
