import type { Kysely } from 'kysely';
import type { ToolBilling } from '../../src/agents/tools/agent-tool.ts';
import type { Database } from '../../src/db/schema.ts';
import type { LiveSessionMeter } from './usage.ts';

/**
 * The priced tool calls of a live session (web searches with the deployment's engine). A
 * session is charged once, when it ends, so nothing is reserved: a search is made only
 * when the workspace's balance covers what the session owes so far plus its price, and a
 * search made joins the session's charge (LiveSessionMeter) at the same price text
 * conversations pay.
 */
export class SessionToolBilling implements ToolBilling {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly workspaceId: string,
    private readonly meter: LiveSessionMeter,
    /** How long the session has run so far. */
    private readonly sessionMs: () => number,
  ) {}

  async hold(millicredits: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('workspaces')
      .select('credit_balance_millicredits')
      .where('id', '=', this.workspaceId)
      .executeTakeFirst();
    const balance = Number(row?.credit_balance_millicredits ?? 0);
    const owed = this.meter.totalMillicredits(this.sessionMs());
    return balance >= owed + millicredits;
  }

  webSearchMade(millicredits: number): void {
    this.meter.webSearchMade(millicredits);
  }
}
