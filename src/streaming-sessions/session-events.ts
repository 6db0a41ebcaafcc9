import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import type { StreamingSessionRecord } from './records.ts';
import { streamingSessionReport } from './report.ts';
import { sessionBody } from './schemas.ts';

/**
 * Writes a webhook event of a streaming session: `streaming_session.started` when it is
 * created, `streaming_session.ended` when it ends, each with the session as GET answers it
 * then (its usage included). Call with the transaction that changes the session, so a
 * session that was created or ended has its event, once.
 */
export async function emitStreamingSessionEvent(
  db: Kysely<Database>,
  scope: TenantScope,
  type: 'streaming_session.started' | 'streaming_session.ended',
  session: StreamingSessionRecord,
): Promise<void> {
  await emitWebhookEvent(db, scope, {
    type,
    timestamp:
      type === 'streaming_session.ended'
        ? (session.endedAt ?? session.updatedAt)
        : session.createdAt,
    data: async () => sessionBody(await streamingSessionReport(db, scope, session)),
  });
}
