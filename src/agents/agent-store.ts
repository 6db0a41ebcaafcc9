import type { Kysely, Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../app/config.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { AgentDraft, AgentEdit, AgentRecord, PublishedAgent } from './agent-records.ts';
import { bit, revisionRow, toDraft, toRecord } from './agent-rows.ts';
import { isUniqueViolation, violationText } from './unique-violation.ts';

export type {
  AgentDraft,
  AgentEdit,
  AgentRecord,
  PublicationInfo,
  PublishedAgent,
  RevisionRef,
} from './agent-records.ts';

import { inScope } from '../db/tenant-scope.ts';

export { isUniqueViolation } from './unique-violation.ts';

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
      .$call(inScope({ workspaceId, environment }, 'agents'))
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
    let query = this.select(this.db).$call(inScope({ workspaceId, environment }, 'agents'));
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

  /**
   * Deletes the Agent with its revisions and publications; its sessions, conversations,
   * documents and memories go with it through the foreign keys. Returns the ids of the
   * sessions deleted with it, read in the same transaction (their recordings are files the
   * caller erases); null when there is no such Agent.
   */
  async delete(
    workspaceId: string,
    environment: Environment,
    id: string,
  ): Promise<{ sessionIds: string[] } | null> {
    return this.db.transaction().execute(async (trx) => {
      const found = await trx
        .selectFrom('agents')
        .select('id')
        .$call(inScope({ workspaceId, environment }))
        .where('id', '=', id)
        .executeTakeFirst();
      if (!found) return null;
      const sessions = await trx
        .selectFrom('agent_sessions')
        .select('id')
        .where('agent_id', '=', id)
        .execute();
      await trx.deleteFrom('agent_publications').where('agent_id', '=', id).execute();
      await trx.deleteFrom('agent_revisions').where('agent_id', '=', id).execute();
      await trx.deleteFrom('agents').where('id', '=', id).execute();
      return { sessionIds: sessions.map((session) => session.id) };
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
      .$call(inScope({ workspaceId, environment }, 'agents'))
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
