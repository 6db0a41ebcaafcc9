import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, Role, WorkspaceStatus } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import {
  DUMMY_HASH,
  hashPassword,
  PASSWORD_MAX_CHARS,
  PASSWORD_MIN_CHARS,
  verifyPassword,
} from './passwords.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';

/** A signed-in workspace member, read fresh on every request (role changes apply at once). */
export interface OperatorPrincipal {
  userId: string;
  email: string;
  workspaceId: string;
  role: Role;
  expiresAt: string;
}

export interface OperatorSessionOptions {
  /** Lifetime of a session from sign-in. */
  ttlMs: number;
  /** Password changes per member per minute. */
  attemptsPerMinute: number;
}

/** Session ids are 32 random bytes; the database keeps only their SHA-256. */
function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('base64url');
}

/** The account check of the spec for a signed-in member: a suspended workspace is 403. */
function refuseSuspended(status: WorkspaceStatus): void {
  if (status === 'suspended') {
    throw new ApiError('organization_suspended', 'The workspace is suspended.');
  }
}

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Operator sign-in and sessions: scrypt passwords, sessions stored as hashes, attempts
 * limited by a {@link SignInThrottle} through Redis (shared by every api process).
 */
export class OperatorSessions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly limiter: RateLimiter,
    private readonly throttle: SignInThrottle,
    private readonly options: OperatorSessionOptions,
  ) {}

  /**
   * Checks the password and opens a session in `workspaceId` (optional when the user
   * belongs to exactly one workspace). Returns the new session id, shown only here.
   */
  async signIn(input: {
    email: string;
    password: string;
    workspaceId?: string | undefined;
    /** The client's address (a trusted proxy's header when configured). */
    remoteAddress: string;
  }): Promise<{ sessionId: string; principal: OperatorPrincipal }> {
    const email = normalizeEmail(input.email);
    await this.throttle.admit(email, input.remoteAddress);
    const user = await this.db
      .selectFrom('users')
      .select(['id', 'email', 'password_hash'])
      .where('email', '=', email)
      .executeTakeFirst();
    // Unknown users cost the same scrypt work, so timing does not tell which emails exist.
    const matches = await verifyPassword(input.password, user?.password_hash ?? DUMMY_HASH);
    if (!user?.password_hash || !matches) {
      await this.throttle.failed(email);
      throw new ApiError('unauthorized', 'The email or password is wrong.');
    }
    await this.throttle.succeeded(email, input.remoteAddress);
    const memberships = await this.db
      .selectFrom('memberships')
      .select(['workspace_id', 'role'])
      .where('user_id', '=', user.id)
      .orderBy('created_at')
      .execute();
    const membership =
      input.workspaceId === undefined
        ? memberships.length === 1
          ? memberships[0]
          : undefined
        : memberships.find((m) => m.workspace_id === input.workspaceId);
    if (!membership) {
      if (input.workspaceId === undefined && memberships.length > 1) {
        throw new ApiError(
          'invalid_request',
          `You belong to ${memberships.length} workspaces; name one in workspace_id: ${memberships.map((m) => m.workspace_id).join(', ')}.`,
        );
      }
      throw new ApiError('forbidden', 'You are not a member of this workspace.');
    }
    const workspace = await this.db
      .selectFrom('workspaces')
      .select('status')
      .where('id', '=', membership.workspace_id)
      .executeTakeFirstOrThrow();
    refuseSuspended(workspace.status);
    const sessionId = randomBytes(32).toString('base64url');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.options.ttlMs).toISOString();
    // Expired sessions of this user are dropped here, so the table does not grow forever.
    await this.db
      .deleteFrom('operator_sessions')
      .where('user_id', '=', user.id)
      .where('expires_at', '<=', now.toISOString())
      .execute();
    await this.db
      .insertInto('operator_sessions')
      .values({
        id_hash: hashSessionId(sessionId),
        user_id: user.id,
        workspace_id: membership.workspace_id,
        created_at: now.toISOString(),
        expires_at: expiresAt,
      })
      .execute();
    return {
      sessionId,
      principal: {
        userId: user.id,
        email: user.email,
        workspaceId: membership.workspace_id,
        role: membership.role,
        expiresAt,
      },
    };
  }

  /**
   * The member behind a session id, or null when unknown, expired or no longer a member.
   * Throws `organization_suspended` while the session's workspace is suspended.
   */
  async resolve(sessionId: string): Promise<OperatorPrincipal | null> {
    const row = await this.db
      .selectFrom('operator_sessions')
      .innerJoin('users', 'users.id', 'operator_sessions.user_id')
      .innerJoin('memberships', (join) =>
        join
          .onRef('memberships.user_id', '=', 'operator_sessions.user_id')
          .onRef('memberships.workspace_id', '=', 'operator_sessions.workspace_id'),
      )
      .innerJoin('workspaces', 'workspaces.id', 'operator_sessions.workspace_id')
      .select([
        'users.id as userId',
        'users.email as email',
        'operator_sessions.workspace_id as workspaceId',
        'memberships.role as role',
        'operator_sessions.expires_at as expiresAt',
        'workspaces.status as workspaceStatus',
      ])
      .where('operator_sessions.id_hash', '=', hashSessionId(sessionId))
      .executeTakeFirst();
    if (!row || row.expiresAt <= new Date().toISOString()) return null;
    const { workspaceStatus, ...principal } = row;
    refuseSuspended(workspaceStatus);
    return principal;
  }

  /**
   * Changes the signed-in member's own password after checking the current one (limited
   * like sign-in attempts); every other session of the user ends, the one in use stays.
   */
  async changeOwnPassword(input: {
    principal: OperatorPrincipal;
    sessionId: string;
    currentPassword: string;
    newPassword: string;
  }): Promise<void> {
    const { principal } = input;
    await this.#limit(`operator-signin:email:${principal.email}`, this.options.attemptsPerMinute);
    const chars = [...input.newPassword].length;
    if (chars < PASSWORD_MIN_CHARS || chars > PASSWORD_MAX_CHARS) {
      throw new ApiError(
        'invalid_request',
        `The new password must be ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters.`,
      );
    }
    const user = await this.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', principal.userId)
      .executeTakeFirst();
    if (!(await verifyPassword(input.currentPassword, user?.password_hash ?? DUMMY_HASH))) {
      throw new ApiError('invalid_request', 'The current password is not right.');
    }
    const hash = await hashPassword(input.newPassword);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({ password_hash: hash })
        .where('id', '=', principal.userId)
        .execute();
      await trx
        .deleteFrom('operator_sessions')
        .where('user_id', '=', principal.userId)
        .where('id_hash', '!=', hashSessionId(input.sessionId))
        .execute();
    });
  }

  /** Ends a session; unknown ids are ignored (sign-out is idempotent). */
  async signOut(sessionId: string): Promise<void> {
    await this.db
      .deleteFrom('operator_sessions')
      .where('id_hash', '=', hashSessionId(sessionId))
      .execute();
  }

  /** Password checks fail closed: without Redis no attempt is counted, so none is allowed. */
  async #limit(bucket: string, perMinute: number): Promise<void> {
    let decision: Awaited<ReturnType<RateLimiter['consume']>>;
    try {
      decision = await this.limiter.consume(bucket, { perMinute, burst: perMinute });
    } catch (error) {
      throw new ApiError('service_unavailable', 'Sign-in is unavailable; try again shortly.', {
        cause: error,
      });
    }
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new ApiError('rate_limited', 'Too many sign-in attempts; wait and try again.', {
        retryAfterSeconds: seconds,
      });
    }
  }
}

/**
 * Sets a user's operator password (the operator tool's `member set-password`) and ends
 * every session the user had, so a changed password also signs out stolen sessions.
 */
export async function setMemberPassword(
  db: Kysely<Database>,
  email: string,
  password: string,
): Promise<{ userId: string }> {
  const chars = [...password].length;
  if (chars < PASSWORD_MIN_CHARS || chars > PASSWORD_MAX_CHARS) {
    throw new ApiError(
      'invalid_request',
      `The password must be ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters.`,
    );
  }
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
  if (!user) {
    throw new ApiError('not_found', 'No user with this email; add them to a workspace first.');
  }
  const hash = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ password_hash: hash }).where('id', '=', user.id).execute();
    await trx.deleteFrom('operator_sessions').where('user_id', '=', user.id).execute();
  });
  return { userId: user.id };
}
