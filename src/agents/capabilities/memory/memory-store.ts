import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../../../app/config.ts';
import type { AgentMemorySource, Database } from '../../../db/schema.ts';
import { inScope } from '../../../db/tenant-scope.ts';

/** Memories kept per Agent and end user; saving one more forgets the oldest. */
export const MAX_MEMORIES_PER_END_USER = 100;
/** Longest memory, in characters. */
export const MAX_MEMORY_CHARS = 500;

/** Whose memories: one Agent of one workspace and environment, about one end user. */
export interface MemoryOwner {
  workspaceId: string;
  environment: Environment;
  agentId: string;
  endUserId: string;
}

export interface MemoryRecord {
  id: string;
  agentId: string;
  endUserId: string;
  text: string;
  source: AgentMemorySource;
  createdAt: string;
}

/** What saving a memory did. */
export interface SavedMemory {
  memory: MemoryRecord;
  /** Memories forgotten to stay within {@link MAX_MEMORIES_PER_END_USER}, oldest first. */
  forgotten: MemoryRecord[];
}

/**
 * The `agent_memories` table: what each Agent remembers about each end user, oldest
 * first. Saving the same text again keeps one copy (the existing one).
 */
export class MemoryStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The end user's memories of this Agent, oldest first. */
  async list(owner: MemoryOwner): Promise<MemoryRecord[]> {
    const rows = await this.db
      .selectFrom('agent_memories')
      .selectAll()
      .where('agent_id', '=', owner.agentId)
      .$call(inScope(owner))
      .where('end_user_id', '=', owner.endUserId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  async save(owner: MemoryOwner, text: string, source: AgentMemorySource): Promise<SavedMemory> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('agent_memories')
        .selectAll()
        .where('agent_id', '=', owner.agentId)
        .where('end_user_id', '=', owner.endUserId)
        .where('text', '=', text)
        .executeTakeFirst();
      if (existing) return { memory: toRecord(existing), forgotten: [] };
      const row = {
        id: uuidv7(),
        agent_id: owner.agentId,
        workspace_id: owner.workspaceId,
        environment: owner.environment,
        end_user_id: owner.endUserId,
        text,
        source,
        created_at: new Date().toISOString(),
      };
      await trx.insertInto('agent_memories').values(row).execute();
      const surplus = await trx
        .selectFrom('agent_memories')
        .selectAll()
        .where('agent_id', '=', owner.agentId)
        .where('end_user_id', '=', owner.endUserId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(MAX_MEMORIES_PER_END_USER)
        .limit(MAX_MEMORIES_PER_END_USER)
        .execute();
      if (surplus.length > 0) {
        await trx
          .deleteFrom('agent_memories')
          .where(
            'id',
            'in',
            surplus.map((r) => r.id),
          )
          .execute();
      }
      return { memory: toRecord(row), forgotten: surplus.reverse().map(toRecord) };
    });
  }

  /** Forgets one memory of the end user; false when it is not theirs or already gone. */
  async forget(owner: MemoryOwner, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('agent_memories')
      .where('id', '=', id)
      .where('agent_id', '=', owner.agentId)
      .$call(inScope(owner))
      .where('end_user_id', '=', owner.endUserId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** One memory of an Agent, whoever it is about; undefined when there is none. */
  async get(scope: Omit<MemoryOwner, 'endUserId'>, id: string): Promise<MemoryRecord | undefined> {
    const row = await this.db
      .selectFrom('agent_memories')
      .selectAll()
      .where('id', '=', id)
      .where('agent_id', '=', scope.agentId)
      .$call(inScope(scope))
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** Forgets everything the Agent remembers about the end user; returns how many. */
  async forgetAll(owner: MemoryOwner): Promise<number> {
    const result = await this.db
      .deleteFrom('agent_memories')
      .where('agent_id', '=', owner.agentId)
      .$call(inScope(owner))
      .where('end_user_id', '=', owner.endUserId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function toRecord(row: {
  id: string;
  agent_id: string;
  end_user_id: string;
  text: string;
  source: AgentMemorySource;
  created_at: string;
}): MemoryRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    endUserId: row.end_user_id,
    text: row.text,
    source: row.source,
    createdAt: row.created_at,
  };
}
