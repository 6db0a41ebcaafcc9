import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

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
  const result = await trx
    .updateTable('workspaces')
    .set((eb) => ({
      credit_balance_millicredits: eb('credit_balance_millicredits', '-', millicredits),
    }))
    .where('id', '=', workspaceId)
    .where('credit_balance_millicredits', '>=', millicredits)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
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
  await trx
    .updateTable('workspaces')
    .set((eb) => ({
      credit_balance_millicredits: eb('credit_balance_millicredits', '+', millicredits),
    }))
    .where('id', '=', workspaceId)
    .execute();
}
