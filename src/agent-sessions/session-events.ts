import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { transcriptBody } from './session-listing.ts';
import { readSessionReport } from './session-report.ts';
import { sessionReportBody } from './session-report-view.ts';

/**
 * The webhook events of Agent sessions. Each is written with the transaction that changes
 * the session's state, so a session that started or ended has its event, once.
 */
export async function emitSessionStarted(db: Kysely<Database>, id: string): Promise<void> {
  const row = await sessionRow(db, id);
  await emitWebhookEvent(db, row.scope, {
    type: 'agent_session.started',
    timestamp: row.started_at ?? row.created_at,
    data: () => ({
      session_id: id,
      agent_id: row.agent_id,
      kind: row.kind,
      end_user_id: row.end_user_id,
      chat_session_id: row.chat_session_id,
      created_at: row.created_at,
      started_at: row.started_at,
    }),
  });
}

/** `agent_session.ended`: the session's report, who it served and its whole transcript. */
export async function emitSessionEnded(db: Kysely<Database>, id: string): Promise<void> {
  const row = await sessionRow(db, id);
  await emitWebhookEvent(db, row.scope, {
    type: 'agent_session.ended',
    timestamp: row.ended_at ?? row.created_at,
    data: async () => ({
      ...sessionReportBody(await readSessionReport(db, row.scope.workspaceId, id)),
      end_user_id: row.end_user_id,
      chat_session_id: row.chat_session_id,
      transcript: await transcriptBody(db, id),
    }),
  });
}

async function sessionRow(db: Kysely<Database>, id: string) {
  const row = await db
    .selectFrom('agent_sessions')
    .select([
      'workspace_id',
      'environment',
      'agent_id',
      'kind',
      'end_user_id',
      'chat_session_id',
      'created_at',
      'started_at',
      'ended_at',
    ])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { ...row, scope: { workspaceId: row.workspace_id, environment: row.environment } };
}
