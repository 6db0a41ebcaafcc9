import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { CreditGrantReason, Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { lockWorkspaceRow } from './balance.ts';
import { MILLICREDITS_PER_CREDIT } from './pricing.ts';

/** One grant as the operator tool shows it. */
export interface CreditGrant {
  id: string;
  credits: number;
  reason: CreditGrantReason;
  note: string | null;
  balanceAfterCredits: number;
  createdAt: string;
}

/** Where a workspace's credit is. Balance + charged + reserved = granted, always. */
export interface CreditAccount {
  workspaceId: string;
  /** Available for new requests. */
  balanceCredits: number;
  /** Held by requests still running. */
  reservedCredits: number;
  /** Charged by finished requests. */
  chargedCredits: number;
  /** Sum of every grant. */
  grantedCredits: number;
  /** The most recent grants, newest first. */
  grants: CreditGrant[];
}

/**
 * Adds a grant inside the caller's transaction: the balance moves by an increment (never
 * overwritten, so refunds of reservations still open stay correct) and the grant row is
 * written with the balance it produced. Returns the balance after, in millicredits.
 */
export async function recordGrant(
  trx: Kysely<Database>,
  grant: { workspaceId: string; millicredits: number; reason: CreditGrantReason; note?: string },
): Promise<number> {
  const updated = await trx
    .updateTable('workspaces')
    .set((eb) => ({
      credit_balance_millicredits: eb('credit_balance_millicredits', '+', grant.millicredits),
      updated_at: new Date().toISOString(),
    }))
    .where('id', '=', grant.workspaceId)
    .returning('credit_balance_millicredits')
    .executeTakeFirst();
  if (!updated) throw new ApiError('not_found', `No workspace ${grant.workspaceId}.`);
  const balance = Number(updated.credit_balance_millicredits);
  if (balance < 0) throw new ApiError('invalid_request', 'A balance cannot go below zero.');
  await trx
    .insertInto('credit_grants')
    .values({
      id: uuidv7(),
      workspace_id: grant.workspaceId,
      millicredits: grant.millicredits,
      reason: grant.reason,
      note: grant.note ?? null,
      balance_after_millicredits: balance,
      created_at: new Date().toISOString(),
    })
    .execute();
  return balance;
}

function toMillicredits(credits: number): number {
  if (!Number.isFinite(credits) || credits < 0) {
    throw new ApiError('invalid_request', 'Credits must be a non-negative number.');
  }
  return Math.round(credits * MILLICREDITS_PER_CREDIT);
}

/**
 * The operator's side of credit: grants (the only way credit enters a workspace) and the
 * account summary. Grants are rows, so the history is kept and the arithmetic of the
 * ledger (src/billing/ledger.ts) stays exact while requests run.
 */
export class CreditGrants {
  constructor(private readonly db: Kysely<Database>) {}

  /** Adds `credits` (> 0) in one transaction: an increment and a grant row. */
  async add(workspaceId: string, credits: number, note?: string): Promise<CreditAccount> {
    const millicredits = toMillicredits(credits);
    if (millicredits === 0) throw new ApiError('invalid_request', 'Add at least 0.001 credits.');
    await this.db
      .transaction()
      .execute((trx) => recordGrant(trx, { workspaceId, millicredits, reason: 'added', note }));
    return this.account(workspaceId);
  }

  /**
   * Makes the available balance `credits` by granting the difference (negative to lower
   * it). The balance is read under the workspace row's lock, taken by a write first, so a
   * reservation or refund running at the same time is neither overwritten nor lost;
   * reservations still open are refunded on top of the new balance when they end.
   */
  async set(workspaceId: string, credits: number, note?: string): Promise<CreditAccount> {
    const target = toMillicredits(credits);
    await this.db.transaction().execute(async (trx) => {
      // The row's lock before the balance is read.
      const locked = await lockWorkspaceRow(trx, workspaceId);
      if (!locked) throw new ApiError('not_found', `No workspace ${workspaceId}.`);
      const difference = target - locked.balance;
      if (difference === 0) return;
      await recordGrant(trx, { workspaceId, millicredits: difference, reason: 'set', note });
    });
    return this.account(workspaceId);
  }

  /**
   * Balance, open reservations, charges and grants of one workspace, all read in one
   * snapshot (a repeatable-read transaction on PostgreSQL; SQLite's one connection runs
   * the transaction alone), so they add up even while requests reserve and close.
   */
  async account(workspaceId: string, recentGrants = 20): Promise<CreditAccount> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) => readAccount(trx, workspaceId, recentGrants));
  }
}

async function readAccount(
  db: Kysely<Database>,
  workspaceId: string,
  recentGrants: number,
): Promise<CreditAccount> {
  const workspace = await db
    .selectFrom('workspaces')
    .select('credit_balance_millicredits')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  if (!workspace) throw new ApiError('not_found', `No workspace ${workspaceId}.`);
  const speech = await ledgerTotals(db, 'synthesis_requests', workspaceId);
  const models = await ledgerTotals(db, 'llm_requests', workspaceId);
  const sessions = await db
    .selectFrom('agent_sessions')
    .select((eb) => eb.fn.sum<number | string | null>('charged_millicredits').as('charged'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const transcription = await db
    .selectFrom('transcription_sessions')
    .select((eb) => [
      eb.fn.sum<number | string | null>('charged_millicredits').as('charged'),
      eb.fn.sum<number | string | null>('reserved_millicredits').as('reserved'),
    ])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  // Every ledger that takes credit: speech, language-model calls, Agent sessions' time,
  // realtime transcription (whose ended sessions hold no reservation).
  const used = {
    charged:
      speech.charged +
      models.charged +
      Number(sessions.charged ?? 0) +
      Number(transcription.charged ?? 0),
    reserved: speech.reserved + models.reserved + Number(transcription.reserved ?? 0),
  };
  const granted = await db
    .selectFrom('credit_grants')
    .select((eb) => eb.fn.sum<number | string | null>('millicredits').as('total'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const grants = await db
    .selectFrom('credit_grants')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(recentGrants)
    .execute();
  const credits = (millicredits: unknown) => Number(millicredits ?? 0) / MILLICREDITS_PER_CREDIT;
  return {
    workspaceId,
    balanceCredits: credits(workspace.credit_balance_millicredits),
    reservedCredits: credits(used.reserved),
    chargedCredits: credits(used.charged),
    grantedCredits: credits(granted.total),
    grants: grants.map((g) => ({
      id: g.id,
      credits: credits(g.millicredits),
      reason: g.reason,
      note: g.note,
      balanceAfterCredits: credits(g.balance_after_millicredits),
      createdAt: g.created_at,
    })),
  };
}

/** What one request ledger charged a workspace, and what its open rows still hold. */
async function ledgerTotals(
  db: Kysely<Database>,
  table: 'synthesis_requests' | 'llm_requests',
  workspaceId: string,
): Promise<{ charged: number; reserved: number }> {
  const row = await db
    .selectFrom(table)
    .select((eb) => [
      eb.fn.sum<number | string | null>('cost_millicredits').as('charged'),
      eb.fn
        .sum<number | string | null>(
          eb
            .case()
            .when('status', '=', 'started')
            .then(eb.ref('reserved_millicredits'))
            .else(0)
            .end(),
        )
        .as('reserved'),
    ])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return { charged: Number(row.charged ?? 0), reserved: Number(row.reserved ?? 0) };
}
