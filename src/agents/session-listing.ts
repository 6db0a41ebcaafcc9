import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { LiveSessionReport, LiveSessions } from './live-sessions.ts';
import {
  recentSessions,
  type SessionScope,
  sessionCursor,
  timedTranscript,
} from './session-history.ts';

/** One listed session: its report, its Agent's slug and its end user. */
export interface ListedSession {
  report: LiveSessionReport;
  agentSlug: string | null;
  endUserId: string | null;
}

/**
 * The scope's sessions newest first, each with the report `GET /v1/agent-sessions/{id}`
 * gives (a silent worker's session is failed on read), of one Agent or end user, older
 * than the session `cursor` names. `nextCursor` is the last one's id when the page is full.
 * A cursor that names no session of the scope is `invalid_request`.
 */
export async function listSessionReports(
  db: Kysely<Database>,
  sessions: LiveSessions,
  scope: SessionScope,
  query: {
    agentId?: string | undefined;
    endUserId?: string | undefined;
    cursor?: string | undefined;
    limit: number;
  },
): Promise<{ sessions: ListedSession[]; nextCursor: string | null }> {
  let before: { createdAt: string; id: string } | undefined;
  if (query.cursor !== undefined) {
    const cursor = await sessionCursor(db, scope, query.cursor);
    if (!cursor) throw new ApiError('invalid_request', 'cursor names no session here.');
    before = cursor;
  }
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
    nextCursor: found.length === query.limit ? (found.at(-1)?.id ?? null) : null,
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
