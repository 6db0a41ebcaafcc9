import type { DatabaseHandle } from '../../src/db/connect.ts';

/** Where a workspace's credit is, in millicredits, read straight from the database. */
export interface CreditAccount {
  balance: number;
  /** Charged by closed ledger rows. */
  charged: number;
  /** Still reserved by rows that are open (`started`). */
  open: number;
  /** Rows still open. */
  openRows: number;
}

/** Reads balance, charges and open reservations of one workspace. */
export async function creditAccount(
  handle: DatabaseHandle,
  workspaceId: string,
): Promise<CreditAccount> {
  const workspace = await handle.db
    .selectFrom('workspaces')
    .select('credit_balance_millicredits')
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const rows = await handle.db
    .selectFrom('synthesis_requests')
    .select(['status', 'reserved_millicredits', 'cost_millicredits'])
    .where('workspace_id', '=', workspaceId)
    .execute();
  const open = rows.filter((r) => r.status === 'started');
  return {
    balance: Number(workspace.credit_balance_millicredits),
    charged: rows.reduce((sum, r) => sum + Number(r.cost_millicredits), 0),
    open: open.reduce((sum, r) => sum + Number(r.reserved_millicredits), 0),
    openRows: open.length,
  };
}

/** Polls `check` every 20 ms until it returns true; throws after `timeoutMs`. */
export async function waitUntil(
  check: () => Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sum of every credit grant of one workspace, in millicredits. */
export async function grantedMillicredits(
  handle: DatabaseHandle,
  workspaceId: string,
): Promise<number> {
  const row = await handle.db
    .selectFrom('credit_grants')
    .select((eb) => eb.fn.sum<number | string | null>('millicredits').as('total'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.total ?? 0);
}
