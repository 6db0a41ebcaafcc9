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

/**
 * Reads balance, charges and open reservations of one workspace in one statement, so all
 * four come from one snapshot: two separate reads could straddle a request that reserves
 * and closes in between (the balance seen before the refund, the row seen after it).
 */
export async function creditAccount(
  handle: DatabaseHandle,
  workspaceId: string,
): Promise<CreditAccount> {
  const row = await handle.db
    .selectFrom('workspaces')
    .where('workspaces.id', '=', workspaceId)
    .select((eb) => [
      'workspaces.credit_balance_millicredits as balance',
      eb
        .selectFrom('synthesis_requests')
        .where('synthesis_requests.workspace_id', '=', workspaceId)
        .select((inner) => inner.fn.sum<number | string | null>('cost_millicredits').as('s'))
        .as('charged'),
      eb
        .selectFrom('synthesis_requests')
        .where('synthesis_requests.workspace_id', '=', workspaceId)
        .where('synthesis_requests.status', '=', 'started')
        .select((inner) => inner.fn.sum<number | string | null>('reserved_millicredits').as('s'))
        .as('open'),
      eb
        .selectFrom('synthesis_requests')
        .where('synthesis_requests.workspace_id', '=', workspaceId)
        .where('synthesis_requests.status', '=', 'started')
        .select((inner) => inner.fn.countAll<number | string>().as('n'))
        .as('openRows'),
    ])
    .executeTakeFirstOrThrow();
  return {
    balance: Number(row.balance),
    charged: Number(row.charged ?? 0),
    open: Number(row.open ?? 0),
    openRows: Number(row.openRows ?? 0),
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
