import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * The languages (BCP 47, as uploaded) of a workspace voice's recordings, each once, in
 * order; empty for a voice without recordings (built-in, imported or vendor voices).
 */
export async function sampleLanguages(
  db: Kysely<Database>,
  workspaceId: string,
  voiceId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('voice_samples')
    .select('language')
    .distinct()
    .where('voice_id', '=', voiceId)
    .where('workspace_id', '=', workspaceId)
    .orderBy('language')
    .execute();
  return rows.map((row) => row.language);
}
