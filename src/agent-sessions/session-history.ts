import type { Kysely } from 'kysely';
import { olderThan } from '../db/page.ts';
import type { Database } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';

/** One persisted transcript turn with the time it was stored. */
export interface TimedTurn {
  id: string;
  role: 'user' | 'agent';
  text: string;
  interrupted: boolean;
  createdAt: string;
}

/** Which sessions {@link recentSessions} reads. */
export interface SessionFilter {
  /** Of one Agent. */
  agentId?: string | undefined;
  /** Of one end user (the `end_user_id` their session token named). */
  endUserId?: string | undefined;
  /** The one session with this id. */
  sessionId?: string | undefined;
  /** Older than this position (the last session of the previous page). */
  before?: { createdAt: string; id: string } | undefined;
  limit: number;
}

/** The scope's sessions that match `filter`, newest first, with their Agent's slug. */
export async function recentSessions(
  db: Kysely<Database>,
  scope: TenantScope,
  options: SessionFilter,
): Promise<
  {
    id: string;
    agentId: string;
    agentSlug: string | null;
    endUserId: string | null;
    createdAt: string;
  }[]
> {
  let query = db
    .selectFrom('agent_sessions as s')
    .leftJoin('agents as a', 'a.id', 's.agent_id')
    .select(['s.id', 's.agent_id', 'a.slug', 's.end_user_id', 's.created_at'])
    .$call(inScope(scope, 's'));
  if (options.agentId !== undefined) query = query.where('s.agent_id', '=', options.agentId);
  if (options.sessionId !== undefined) query = query.where('s.id', '=', options.sessionId);
  if (options.endUserId !== undefined) query = query.where('s.end_user_id', '=', options.endUserId);
  const before = options.before;
  if (before !== undefined) {
    query = query.where(olderThan({ at: before.createdAt, id: before.id }, 's.created_at', 's.id'));
  }
  const rows = await query
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(options.limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    agentId: row.agent_id,
    agentSlug: row.slug,
    endUserId: row.end_user_id,
    createdAt: row.created_at,
  }));
}

/** A session's transcript, oldest first, with the time each turn was stored. */
export async function timedTranscript(
  db: Kysely<Database>,
  sessionId: string,
): Promise<TimedTurn[]> {
  const rows = await db
    .selectFrom('agent_session_messages')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    role: row.role,
    text: row.text,
    interrupted: Number(row.interrupted) === 1,
    createdAt: row.created_at,
  }));
}
