import type { Kysely } from 'kysely';
import { ReusableQuery } from '../db/reusable-query.ts';
import type { Database } from '../db/schema.ts';

const DEBIT = new ReusableQuery((db: Kysely<Database>, workspaceId: string, millicredits: number) =>
  db
    .updateTable('workspaces')
    .set((eb) => ({
      credit_balance_millicredits: eb('credit_balance_millicredits', '-', millicredits),
    }))
    .where('id', '=', workspaceId)
    .where('credit_balance_millicredits', '>=', millicredits),
);

const CREDIT = new ReusableQuery(
  (db: Kysely<Database>, workspaceId: string, millicredits: number) =>
    db
      .updateTable('workspaces')
      .set((eb) => ({
        credit_balance_millicredits: eb('credit_balance_millicredits', '+', millicredits),
      }))
      .where('id', '=', workspaceId),
);

/**
 * Takes `millicredits` from a workspace balance in one conditional statement, so the
 * balance never goes negative whatever runs at the same time. Returns false (and changes
 * nothing) when the balance cannot cover it. Call it inside the transaction that records
 * what the credit was taken for.
 */
export async function debitBalance(
  trx: Kysely<Database>,
  workspaceId: string,
  millicredits: number,
): Promise<boolean> {
  if (millicredits <= 0) return true;
  const result = await DEBIT.execute(trx, workspaceId, millicredits);
  return Number(result.numAffectedRows) === 1;
}

/**
 * Returns `millicredits` to a workspace balance (an increment, never a read-modify-write).
 * Call it only after the caller has won the conditional status update of the row that
 * held the reservation, in the same transaction: that is what makes a refund happen once.
 */
export async function creditBalance(
  trx: Kysely<Database>,
  workspaceId: string,
  millicredits: number,
): Promise<void> {
  if (millicredits <= 0) return;
  await CREDIT.execute(trx, workspaceId, millicredits);
}

/**
 * Takes the workspace row's write lock for the rest of the transaction (a row lock on
 * PostgreSQL, the database's write lock on SQLite) and returns its balance, so what is read
 * next is what later writes build on. Null when there is no such workspace.
 */
export async function lockWorkspaceRow(
  trx: Kysely<Database>,
  workspaceId: string,
): Promise<{ balance: number } | null> {
  const row = await trx
    .updateTable('workspaces')
    .set({ updated_at: new Date().toISOString() })
    .where('id', '=', workspaceId)
    .returning('credit_balance_millicredits')
    .executeTakeFirst();
  return row ? { balance: Number(row.credit_balance_millicredits) } : null;
}

/**
 * Takes up to `millicredits` from a workspace balance, as much as it covers (never below
 * zero), and returns what it took. Call it inside the transaction that records the charge.
 */
export async function debitUpTo(
  trx: Kysely<Database>,
  workspaceId: string,
  millicredits: number,
): Promise<number> {
  if (millicredits <= 0) return 0;
  const locked = await lockWorkspaceRow(trx, workspaceId);
  const debited = Math.min(millicredits, Math.max(0, locked?.balance ?? 0));
  if (debited > 0 && !(await debitBalance(trx, workspaceId, debited))) {
    throw new Error('the locked balance changed under the debit');
  }
  return debited;
}
