import type { Kysely } from 'kysely';
import { fullPageCursor } from '../db/page.ts';
import type { Database } from '../db/schema.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { decodePageCursor, encodePageCursor } from '../http/page-cursor.ts';
import type { AgentSessionReport } from './agent-session-records.ts';
import { recentSessions, timedTranscript } from './session-history.ts';

/** One listed session: its report, its Agent's slug and its end user. */
export interface ListedSession {
  report: AgentSessionReport;
  agentSlug: string | null;
  endUserId: string | null;
}

/**
 * Where listed sessions' reports come from: `AgentSessions`, which fails a silent worker's
 * session as it reads it.
 */
export interface SessionReports {
  report(scope: TenantScope, id: string): Promise<AgentSessionReport | undefined>;
}

/**
 * The scope's sessions newest first, each with the report `GET /v1/agent-sessions/{id}`
 * gives (a silent worker's session is failed on read), of one Agent or end user, older
 * than the position `cursor` names. `nextCursor` is the last one's position when the page
 * is full.
 */
export async function listSessionReports(
  db: Kysely<Database>,
  sessions: SessionReports,
  scope: TenantScope,
  query: {
    agentId?: string | undefined;
    endUserId?: string | undefined;
    cursor?: string | undefined;
    limit: number;
  },
): Promise<{ sessions: ListedSession[]; nextCursor: string | null }> {
  const position = query.cursor === undefined ? undefined : decodePageCursor(query.cursor);
  const before = position && { createdAt: position.at, id: position.id };
  const found = await recentSessions(db, scope, {
    agentId: query.agentId,
    endUserId: query.endUserId,
    before,
    limit: query.limit,
  });
  const listed: ListedSession[] = [];
  for (const entry of found) {
    const report = await sessions.report(scope, entry.id);
    if (report) listed.push({ report, agentSlug: entry.agentSlug, endUserId: entry.endUserId });
  }
  return {
    sessions: listed,
    nextCursor: fullPageCursor(found, query.limit, (last) =>
      encodePageCursor({ at: last.createdAt, id: last.id }),
    ),
  };
}

/** The API's shape of a session's transcript turns, oldest first. */
export async function transcriptBody(db: Kysely<Database>, sessionId: string) {
  return (await timedTranscript(db, sessionId)).map((turn) => ({
    id: turn.id,
    role: turn.role,
    text: turn.text,
    interrupted: turn.interrupted,
    created_at: turn.createdAt,
  }));
}
