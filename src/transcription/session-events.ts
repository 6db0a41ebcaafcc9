import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { readTranscriptionSession } from './session-reads.ts';

/**
 * Writes a webhook event of a realtime transcription session: `transcription_session.started`
 * when its row opens, `transcription_session.ended` when it closes, each with the session as
 * GET answers it then. Call with the transaction that changes the row, so a session that
 * opened or closed has its event, once.
 */
export async function emitTranscriptionSessionEvent(
  db: Kysely<Database>,
  scope: TenantScope,
  event: {
    type: 'transcription_session.started' | 'transcription_session.ended';
    sessionId: string;
    /** When the session started or ended (its `started_at` or `ended_at`). */
    timestamp: string;
  },
): Promise<void> {
  await emitWebhookEvent(db, scope, {
    type: event.type,
    timestamp: event.timestamp,
    data: () => readTranscriptionSession(db, scope, event.sessionId),
  });
}
