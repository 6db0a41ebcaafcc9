import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { lockWorkspaceRow } from '../billing/balance.ts';
import type { Database, Role } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { setMemberPassword } from '../operator/operator-sessions.ts';
import { hashPassword } from '../operator/passwords.ts';
import { ensureUser } from './members.ts';

/** A member as the dashboard's Members page lists it. */
export interface MemberView {
  userId: string;
  email: string;
  role: Role;
  addedAt: string;
  /** False until the user has an operator password. */
  canSignIn: boolean;
}

/** The signed-in member doing the change. */
export interface MemberActor {
  userId: string;
  workspaceId: string;
  role: Role;
}

/** What adding a member or resetting a password hands out once. */
export interface IssuedPassword {
  member: MemberView;
  /** The generated password, shown only in this answer. */
  password: string;
}

const RANK: Record<Role, number> = { owner: 3, admin: 2, builder: 1, member: 0 };

/** Generated passwords: 24 characters of base64url (144 random bits), as the first start's. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** An Owner acts on every member; anyone else only on roles below their own. */
function mayActOn(actor: MemberActor, role: Role): boolean {
  return actor.role === 'owner' || RANK[role] < RANK[actor.role];
}

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Workspace membership managed by its members (the dashboard's Members page): add by
 * email, change a role, remove, reset a password.
 *
 * Rules: an Owner may do all of it to anyone; an Admin only to Builders and Members, and
 * may grant only those roles. A workspace always keeps an Owner: the last one cannot be
 * demoted or removed (the workspace row is locked while owners are counted, so two
 * concurrent demotions cannot both pass). A password is global to the user, so passwords
 * are generated (on adding) and reset only for users of this workspace alone: otherwise one
 * workspace would hand out, or learn, the key to another's member.
 * A removed member's sessions in the workspace end with the removal.
 */
export class MemberAdmin {
  constructor(private readonly db: Kysely<Database>) {}

  async list(workspaceId: string): Promise<MemberView[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select([
        'users.id as userId',
        'users.email',
        'memberships.role',
        'memberships.created_at as addedAt',
        'users.password_hash',
      ])
      .where('memberships.workspace_id', '=', workspaceId)
      .orderBy('memberships.created_at')
      .orderBy('users.email')
      .execute();
    return rows.map(({ password_hash, ...row }) => ({ ...row, canSignIn: password_hash !== null }));
  }

  /**
   * Adds the user with `email` as `role`, with a new generated password returned once. Only
   * a user who belongs to no other workspace: a password is the user's in every workspace,
   * so one workspace must neither hand out nor learn the password of another's member (the
   * operator tool, `awp member add`, joins users across workspaces). A user who exists
   * without any workspace gets a fresh password, and any old one stops working.
   */
  async add(actor: MemberActor, email: string, role: Role): Promise<IssuedPassword> {
    const normalized = normalizeEmail(email);
    if (!/^[^\s@]+@[^\s@]+$/.test(normalized) || normalized.length > 254) {
      throw new ApiError('invalid_request', 'A valid email address is required.');
    }
    if (!mayActOn(actor, role)) {
      throw new ApiError('forbidden', `Only an Owner may add a member as ${role}.`);
    }
    // Hashed before the transaction: scrypt takes a while, and a write lock must not wait on it.
    const password = generatePassword();
    const hash = await hashPassword(password);
    const outcome = await this.db.transaction().execute(async (trx) => {
      await lockWorkspaceRow(trx, actor.workspaceId);
      const now = new Date().toISOString();
      const user = await ensureUser(trx, normalized, now);
      const memberships = await trx
        .selectFrom('memberships')
        .select('workspace_id')
        .where('user_id', '=', user.id)
        .execute();
      if (memberships.some((m) => m.workspace_id === actor.workspaceId)) {
        return { userId: user.id, refused: 'member' as const };
      }
      if (memberships.length > 0) return { userId: user.id, refused: 'elsewhere' as const };
      await trx
        .insertInto('memberships')
        .values({ workspace_id: actor.workspaceId, user_id: user.id, role, created_at: now })
        .execute();
      await trx
        .updateTable('users')
        .set({ password_hash: hash })
        .where('id', '=', user.id)
        .execute();
      await trx.deleteFrom('operator_sessions').where('user_id', '=', user.id).execute();
      return { userId: user.id, refused: null };
    });
    if (outcome.refused === 'member') {
      throw new ApiError(
        'conflict',
        `${normalized} is already a member; change their role instead.`,
      );
    }
    if (outcome.refused === 'elsewhere') {
      throw new ApiError(
        'conflict',
        `${normalized} belongs to another workspace; a platform operator adds them with the operator tool (awp member add).`,
      );
    }
    return { member: await this.#member(actor.workspaceId, outcome.userId), password };
  }

  async changeRole(actor: MemberActor, userId: string, role: Role): Promise<MemberView> {
    if (!mayActOn(actor, role)) {
      throw new ApiError('forbidden', `Only an Owner may make a member ${role}.`);
    }
    await this.db.transaction().execute(async (trx) => {
      const current = await this.#target(trx, actor, userId);
      if (current === role) return;
      if (current === 'owner') await requireAnotherOwner(trx, actor.workspaceId);
      await trx
        .updateTable('memberships')
        .set({ role })
        .where('workspace_id', '=', actor.workspaceId)
        .where('user_id', '=', userId)
        .execute();
    });
    return this.#member(actor.workspaceId, userId);
  }

  async remove(actor: MemberActor, userId: string): Promise<MemberView> {
    const member = await this.#member(actor.workspaceId, userId);
    await this.db.transaction().execute(async (trx) => {
      const current = await this.#target(trx, actor, userId);
      if (current === 'owner') await requireAnotherOwner(trx, actor.workspaceId);
      await trx
        .deleteFrom('memberships')
        .where('workspace_id', '=', actor.workspaceId)
        .where('user_id', '=', userId)
        .execute();
      await trx
        .deleteFrom('operator_sessions')
        .where('workspace_id', '=', actor.workspaceId)
        .where('user_id', '=', userId)
        .execute();
    });
    return member;
  }

  /** A new generated password for the member; every session they had ends. */
  async resetPassword(actor: MemberActor, userId: string): Promise<IssuedPassword> {
    if (userId === actor.userId) {
      throw new ApiError('forbidden', 'Your own password is not reset here.');
    }
    const member = await this.#member(actor.workspaceId, userId);
    if (!mayActOn(actor, member.role)) {
      throw new ApiError('forbidden', `Only an Owner may reset the password of a ${member.role}.`);
    }
    const others = await this.db
      .selectFrom('memberships')
      .select('workspace_id')
      .where('user_id', '=', userId)
      .where('workspace_id', '!=', actor.workspaceId)
      .limit(1)
      .execute();
    if (others.length > 0) {
      throw new ApiError(
        'conflict',
        `${member.email} is a member of other workspaces too: their password is set with the operator tool.`,
      );
    }
    const password = generatePassword();
    await setMemberPassword(this.db, member.email, password);
    return { member: { ...member, canSignIn: true }, password };
  }

  /** The member's current role, checked against what `actor` may act on. */
  async #target(trx: Transaction<Database>, actor: MemberActor, userId: string): Promise<Role> {
    await lockWorkspaceRow(trx, actor.workspaceId);
    const row = await trx
      .selectFrom('memberships')
      .select('role')
      .where('workspace_id', '=', actor.workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw new ApiError('not_found', 'No such member in this workspace.');
    if (!mayActOn(actor, row.role)) {
      throw new ApiError('forbidden', `Only an Owner may change or remove a ${row.role}.`);
    }
    return row.role;
  }

  async #member(workspaceId: string, userId: string): Promise<MemberView> {
    const found = (await this.list(workspaceId)).find((member) => member.userId === userId);
    if (!found) throw new ApiError('not_found', 'No such member in this workspace.');
    return found;
  }
}

async function requireAnotherOwner(trx: Transaction<Database>, workspaceId: string): Promise<void> {
  const owners = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  if (Number(owners.count) <= 1) {
    throw new ApiError('conflict', 'A workspace keeps at least one Owner.');
  }
}
