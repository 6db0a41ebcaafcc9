import type { Kysely, Selectable } from 'kysely';
import type { Environment } from '../app/config.ts';
import type { Database, VoiceGenerationsTable } from '../db/schema.ts';
import { inScope } from '../db/tenant-scope.ts';

/** One stored Playground generation: the voice's generation History. */
export interface VoiceGeneration {
  id: string;
  workspaceId: string;
  environment: Environment;
  voiceId: string;
  /** The voice route that produced it; null for built-in voices. */
  routeId: string | null;
  provider: string;
  model: string | null;
  /** The ledger row that charged it. */
  requestId: string;
  text: string;
  outputFormat: string;
  speed: number | null;
  voiceTags: string[] | null;
  tagsSkipped: boolean;
  contentType: string;
  durationMs: number;
  sizeBytes: number;
  costMillicredits: number;
  objectKey: string;
  createdBy: string;
  createdAt: string;
}

/** Rows of `voice_generations`, always read within one workspace and environment. */
export class VoiceGenerationStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(generation: VoiceGeneration): Promise<void> {
    await this.db
      .insertInto('voice_generations')
      .values({
        id: generation.id,
        workspace_id: generation.workspaceId,
        environment: generation.environment,
        voice_id: generation.voiceId,
        route_id: generation.routeId,
        provider: generation.provider,
        model: generation.model,
        request_id: generation.requestId,
        text: generation.text,
        output_format: generation.outputFormat,
        speed: generation.speed,
        voice_tags: generation.voiceTags === null ? null : JSON.stringify(generation.voiceTags),
        tags_skipped: generation.tagsSkipped ? 1 : 0,
        content_type: generation.contentType,
        duration_ms: generation.durationMs,
        size_bytes: generation.sizeBytes,
        cost_millicredits: generation.costMillicredits,
        object_key: generation.objectKey,
        created_by: generation.createdBy,
        created_at: generation.createdAt,
      })
      .execute();
  }

  /** The voice's generations, newest first, at most `limit`. */
  async list(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
    limit: number,
  ): Promise<VoiceGeneration[]> {
    const rows = await this.db
      .selectFrom('voice_generations')
      .selectAll()
      .$call(inScope({ workspaceId, environment }))
      .where('voice_id', '=', voiceId)
      // Ids are UUIDv7: they break ties between generations of the same millisecond.
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toGeneration);
  }

  /** Removes one generation of the voice; false when the voice has none with this id. */
  async delete(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
    id: string,
  ): Promise<boolean> {
    const result = await this.db
      .deleteFrom('voice_generations')
      .where('id', '=', id)
      .$call(inScope({ workspaceId, environment }))
      .where('voice_id', '=', voiceId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** One generation of the voice, or null. */
  async find(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
    id: string,
  ): Promise<VoiceGeneration | null> {
    const row = await this.db
      .selectFrom('voice_generations')
      .selectAll()
      .where('id', '=', id)
      .$call(inScope({ workspaceId, environment }))
      .where('voice_id', '=', voiceId)
      .executeTakeFirst();
    return row ? toGeneration(row) : null;
  }
}

function toGeneration(row: Selectable<VoiceGenerationsTable>): VoiceGeneration {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    environment: row.environment,
    voiceId: row.voice_id,
    routeId: row.route_id,
    provider: row.provider,
    model: row.model,
    requestId: row.request_id,
    text: row.text,
    outputFormat: row.output_format,
    speed: row.speed === null ? null : Number(row.speed),
    voiceTags: row.voice_tags === null ? null : (JSON.parse(row.voice_tags) as string[]),
    tagsSkipped: Number(row.tags_skipped) === 1,
    contentType: row.content_type,
    durationMs: Number(row.duration_ms),
    sizeBytes: Number(row.size_bytes),
    costMillicredits: Number(row.cost_millicredits),
    objectKey: row.object_key,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}
