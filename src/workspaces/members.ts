import type { Kysely, Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Database, Role } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { requireWorkspace } from './workspaces.ts';

export {
  AGENT_BUILDER_ROLES,
  KEY_MANAGER_ROLES,
  MEMBER_MANAGER_ROLES,
  ROLES,
  VOICE_MANAGER_ROLES,
} from './roles.ts';

export interface Member {
  userId: string;
  email: string;
  role: Role;
}

/** Users and their roles in workspaces. */
export class Members {
  constructor(private readonly db: Kysely<Database>) {}

  /** Adds a user (created on first use, by email) to a workspace, or changes their role. */
  async add(workspaceId: string, email: string, role: Role): Promise<Member> {
    const normalized = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(normalized)) {
      throw new ApiError('invalid_request', 'A valid email address is required.');
    }
    await requireWorkspace(this.db, workspaceId);
    return this.db.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      const user = await ensureUser(trx, normalized, now);
      await trx
        .insertInto('memberships')
        .values({ workspace_id: workspaceId, user_id: user.id, role, created_at: now })
        .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doUpdateSet({ role }))
        .execute();
      return { userId: user.id, email: normalized, role };
    });
  }

  async list(workspaceId: string): Promise<Member[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['users.id as userId', 'users.email', 'memberships.role'])
      .where('memberships.workspace_id', '=', workspaceId)
      .orderBy('memberships.created_at')
      .execute();
    return rows;
  }
}

/** The user with `email` (already normalized), created when new. */
export async function ensureUser(
  trx: Transaction<Database>,
  email: string,
  now: string,
): Promise<{ id: string }> {
  await trx
    .insertInto('users')
    .values({ id: uuidv7(), email, created_at: now })
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
  return trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
}
