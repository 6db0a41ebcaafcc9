import type { Kysely, Selectable, Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../config.ts';
import type { AgentRevisionsTable, Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { LlmProviderName, ThinkingLevel } from '../llm/provider.ts';
import { type CharacterCard, parseStoredCard } from './character-card.ts';

/** What one draft revision holds: everything a session of the Agent would run. */
export interface AgentDraft {
  characterCard: CharacterCard;
  /** Public voice selection; null until one is chosen. */
  voiceId: string | null;
  avatarId: string;
  /** Null only when the deployment offered no language model at the time of the write. */
  llmProvider: LlmProviderName | null;
  llmModel: string | null;
  thinkingLevel: ThinkingLevel;
  webSearchEnabled: boolean;
  memoryEnabled: boolean;
  calendarEnabled: boolean;
  documentsEnabled: boolean;
}

export interface RevisionRef {
  id: string;
  version: number;
}

/** The publication sessions run, as the Agent resource shows it. */
export interface PublicationInfo {
  id: string;
  version: number;
  revision: RevisionRef;
  memoryEnabled: boolean;
  calendarEnabled: boolean;
  documentsEnabled: boolean;
  createdAt: string;
}

/** An Agent with its current draft revision and active publication. */
export interface AgentRecord {
  id: string;
  workspaceId: string;
  environment: Environment;
  slug: string;
  draft: AgentDraft;
  draftRevision: RevisionRef;
  activePublication: PublicationInfo | null;
  createdAt: string;
  updatedAt: string;
}

/** Everything a session of a published Agent runs: the snapshot of its active publication. */
export interface PublishedAgent extends AgentDraft {
  agentId: string;
  workspaceId: string;
  environment: Environment;
  slug: string;
  publication: PublicationInfo;
}

/** The result of an edit: a new slug and/or draft. */
export interface AgentEdit {
  slug?: string;
  draft: AgentDraft;
}

type Db = Kysely<Database> | Transaction<Database>;
const WRITE_ATTEMPTS = 5;

/**
 * Agents in the database. Every write adds an immutable revision row and moves the draft
 * pointer; publishing adds an immutable publication row pointing at the current revision
 * and moves the active pointer. Concurrent writers are ordered by the unique
 * (agent, version) indexes: a loser retries on the new state.
 */
export class AgentStore {
  constructor(private readonly db: Kysely<Database>) {}

  async create(input: {
    workspaceId: string;
    environment: Environment;
    slug: string;
    draft: AgentDraft;
  }): Promise<AgentRecord> {
    const id = uuidv7();
    const revisionId = uuidv7();
    const now = new Date().toISOString();
    await this.slugWrite(() =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('agents')
          .values({
            id,
            workspace_id: input.workspaceId,
            environment: input.environment,
            slug: input.slug,
            draft_revision_id: revisionId,
            draft_version: 1,
            active_publication_id: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
        await trx
          .insertInto('agent_revisions')
          .values(revisionRow(revisionId, id, 1, input.draft, now))
          .execute();
      }),
    );
    return (await this.get(input.workspaceId, input.environment, id)) as AgentRecord;
  }

  async get(
    workspaceId: string,
    environment: Environment,
    id: string,
  ): Promise<AgentRecord | null> {
    const row = await this.select(this.db)
      .where('agents.workspace_id', '=', workspaceId)
      .where('agents.environment', '=', environment)
      .where('agents.id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** Agents ordered by id (UUIDv7: creation order), after `afterId`, at most `limit`. */
  async list(
    workspaceId: string,
    environment: Environment,
    options: { afterId?: string | undefined; limit: number; slug?: string | undefined },
  ): Promise<AgentRecord[]> {
    let query = this.select(this.db)
      .where('agents.workspace_id', '=', workspaceId)
      .where('agents.environment', '=', environment);
    if (options.afterId) query = query.where('agents.id', '>', options.afterId);
    if (options.slug !== undefined) query = query.where('agents.slug', '=', options.slug);
    const rows = await query.orderBy('agents.id').limit(options.limit).execute();
    return rows.map(toRecord);
  }

  /**
   * Writes a new draft revision computed from the current Agent by `edit` (which may throw
   * to refuse). Null when the Agent does not exist.
   */
  async update(
    workspaceId: string,
    environment: Environment,
    id: string,
    edit: (current: AgentRecord) => AgentEdit | Promise<AgentEdit>,
  ): Promise<AgentRecord | null> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.get(workspaceId, environment, id);
      if (!current) return null;
      const next = await edit(current);
      const version = current.draftRevision.version + 1;
      const revisionId = uuidv7();
      const now = new Date().toISOString();
      try {
        await this.slugWrite(() =>
          this.db.transaction().execute(async (trx) => {
            await trx
              .insertInto('agent_revisions')
              .values(revisionRow(revisionId, id, version, next.draft, now))
              .execute();
            const result = await trx
              .updateTable('agents')
              .set({
                draft_revision_id: revisionId,
                draft_version: version,
                updated_at: now,
                ...(next.slug !== undefined ? { slug: next.slug } : {}),
              })
              .where('id', '=', id)
              .where('draft_version', '=', current.draftRevision.version)
              .executeTakeFirst();
            if (Number(result.numUpdatedRows) !== 1) throw new LostRace();
          }),
        );
        return await this.get(workspaceId, environment, id);
      } catch (error) {
        if (!(error instanceof LostRace || isUniqueViolation(error)) || attempt >= WRITE_ATTEMPTS) {
          throw error;
        }
      }
    }
  }

  /** Deletes the Agent with its revisions and publications; false when there is none. */
  async delete(workspaceId: string, environment: Environment, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const found = await trx
        .selectFrom('agents')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('environment', '=', environment)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!found) return false;
      await trx.deleteFrom('agent_publications').where('agent_id', '=', id).execute();
      await trx.deleteFrom('agent_revisions').where('agent_id', '=', id).execute();
      await trx.deleteFrom('agents').where('id', '=', id).execute();
      return true;
    });
  }

  /**
   * Publishes the current draft revision: a new publication with the next version becomes
   * active. `check` sees the Agent first and may throw to refuse. Null when not found.
   */
  async publish(
    workspaceId: string,
    environment: Environment,
    id: string,
    check: (current: AgentRecord) => void | Promise<void>,
  ): Promise<AgentRecord | null> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.get(workspaceId, environment, id);
      if (!current) return null;
      await check(current);
      const publicationVersion =
        (current.activePublication ? await this.publicationVersion(id) : 0) + 1;
      const publicationId = uuidv7();
      const now = new Date().toISOString();
      try {
        await this.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('agent_publications')
            .values({
              id: publicationId,
              agent_id: id,
              version: publicationVersion,
              revision_id: current.draftRevision.id,
              memory_enabled: bit(current.draft.memoryEnabled),
              calendar_enabled: bit(current.draft.calendarEnabled),
              documents_enabled: bit(current.draft.documentsEnabled),
              created_at: now,
            })
            .execute();
          const result = await trx
            .updateTable('agents')
            .set({ active_publication_id: publicationId, publication_version: publicationVersion })
            .where('id', '=', id)
            .where('draft_version', '=', current.draftRevision.version)
            .where('publication_version', '=', publicationVersion - 1)
            .executeTakeFirst();
          if (Number(result.numUpdatedRows) !== 1) throw new LostRace();
        });
        return await this.get(workspaceId, environment, id);
      } catch (error) {
        if (!(error instanceof LostRace || isUniqueViolation(error)) || attempt >= WRITE_ATTEMPTS) {
          throw error;
        }
      }
    }
  }

  /**
   * What a session of this Agent must run: the snapshot of its active publication (never
   * the draft). Null when the Agent does not exist here or was never published.
   */
  async activePublication(
    workspaceId: string,
    environment: Environment,
    agentId: string,
  ): Promise<PublishedAgent | null> {
    const row = await this.db
      .selectFrom('agents')
      .innerJoin('agent_publications as p', 'p.id', 'agents.active_publication_id')
      .innerJoin('agent_revisions as r', 'r.id', 'p.revision_id')
      .selectAll('r')
      .select([
        'agents.slug',
        'p.id as publication_id',
        'p.version as publication_version',
        'p.memory_enabled as p_memory',
        'p.calendar_enabled as p_calendar',
        'p.documents_enabled as p_documents',
        'p.created_at as publication_created_at',
      ])
      .where('agents.workspace_id', '=', workspaceId)
      .where('agents.environment', '=', environment)
      .where('agents.id', '=', agentId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      ...toDraft(row),
      agentId,
      workspaceId,
      environment,
      slug: row.slug,
      publication: {
        id: row.publication_id,
        version: Number(row.publication_version),
        revision: { id: row.id, version: Number(row.version) },
        memoryEnabled: Number(row.p_memory) === 1,
        calendarEnabled: Number(row.p_calendar) === 1,
        documentsEnabled: Number(row.p_documents) === 1,
        createdAt: row.publication_created_at,
      },
    };
  }

  private async publicationVersion(id: string): Promise<number> {
    const row = await this.db
      .selectFrom('agents')
      .select('publication_version')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.publication_version);
  }

  /** Runs a write that may change a slug: a clash with another Agent is `409 conflict`. */
  private async slugWrite<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error) && violationText(error).includes('slug')) {
        throw new ApiError('conflict', 'Another Agent in this environment has this slug.');
      }
      throw error;
    }
  }

  private select(db: Db) {
    return db
      .selectFrom('agents')
      .innerJoin('agent_revisions as r', 'r.id', 'agents.draft_revision_id')
      .leftJoin('agent_publications as p', 'p.id', 'agents.active_publication_id')
      .leftJoin('agent_revisions as pr', 'pr.id', 'p.revision_id')
      .selectAll('r')
      .select([
        'agents.id as agent_id_',
        'agents.workspace_id',
        'agents.environment',
        'agents.slug',
        'agents.created_at as agent_created_at',
        'agents.updated_at as agent_updated_at',
        'p.id as publication_id',
        'p.version as publication_version',
        'p.memory_enabled as p_memory',
        'p.calendar_enabled as p_calendar',
        'p.documents_enabled as p_documents',
        'p.created_at as publication_created_at',
        'pr.id as publication_revision_id',
        'pr.version as publication_revision_version',
      ]);
  }
}

class LostRace extends Error {}

type RevisionRow = Selectable<AgentRevisionsTable>;

type AgentRow = RevisionRow & {
  agent_id_: string;
  workspace_id: string;
  environment: Environment;
  slug: string;
  agent_created_at: string;
  agent_updated_at: string;
  publication_id: string | null;
  publication_version: number | null;
  p_memory: number | null;
  p_calendar: number | null;
  p_documents: number | null;
  publication_created_at: string | null;
  publication_revision_id: string | null;
  publication_revision_version: number | null;
};

function toRecord(row: AgentRow): AgentRecord {
  return {
    id: row.agent_id_,
    workspaceId: row.workspace_id,
    environment: row.environment,
    slug: row.slug,
    draft: toDraft(row),
    draftRevision: { id: row.id, version: Number(row.version) },
    activePublication:
      row.publication_id === null
        ? null
        : {
            id: row.publication_id,
            version: Number(row.publication_version),
            revision: {
              id: row.publication_revision_id as string,
              version: Number(row.publication_revision_version),
            },
            memoryEnabled: Number(row.p_memory) === 1,
            calendarEnabled: Number(row.p_calendar) === 1,
            documentsEnabled: Number(row.p_documents) === 1,
            createdAt: row.publication_created_at as string,
          },
    createdAt: row.agent_created_at,
    updatedAt: row.agent_updated_at,
  };
}

function toDraft(row: RevisionRow): AgentDraft {
  return {
    characterCard: parseStoredCard(row.character_card),
    voiceId: row.voice_id,
    avatarId: row.avatar_id,
    llmProvider: row.llm_provider as LlmProviderName | null,
    llmModel: row.llm_model,
    thinkingLevel: row.thinking_level as ThinkingLevel,
    webSearchEnabled: Number(row.web_search_enabled) === 1,
    memoryEnabled: Number(row.memory_enabled) === 1,
    calendarEnabled: Number(row.calendar_enabled) === 1,
    documentsEnabled: Number(row.documents_enabled) === 1,
  };
}

function revisionRow(
  id: string,
  agentId: string,
  version: number,
  draft: AgentDraft,
  now: string,
): AgentRevisionsTable {
  return {
    id,
    agent_id: agentId,
    version,
    character_card: JSON.stringify(draft.characterCard),
    voice_id: draft.voiceId,
    avatar_id: draft.avatarId,
    llm_provider: draft.llmProvider,
    llm_model: draft.llmModel,
    thinking_level: draft.thinkingLevel,
    web_search_enabled: bit(draft.webSearchEnabled),
    memory_enabled: bit(draft.memoryEnabled),
    calendar_enabled: bit(draft.calendarEnabled),
    documents_enabled: bit(draft.documentsEnabled),
    created_at: now,
  };
}

function bit(value: boolean): number {
  return value ? 1 : 0;
}

/** True for a unique-index violation on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return (
    e?.code === '23505' ||
    (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT_UNIQUE')) ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

function violationText(error: unknown): string {
  const e = error as { constraint?: unknown; message?: unknown };
  return `${String(e.constraint ?? '')} ${String(e.message ?? '')}`;
}
