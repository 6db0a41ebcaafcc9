import type { ToolBilling } from '../../src/worker-boundary/index.ts';
import type { AgentSessionMeter } from './usage.ts';

/**
 * The priced tool calls of an Agent session (web searches with the deployment's engine). A
 * session is charged once, when it ends, so nothing is reserved: a search is made only
 * when the workspace's balance covers what the session owes so far plus its price, and a
 * search made joins the session's charge (AgentSessionMeter) at the same price text
 * conversations pay.
 */
export class SessionToolBilling implements ToolBilling {
  constructor(
    /** The workspace's credit balance now, in millicredits. */
    private readonly balance: () => Promise<number>,
    private readonly meter: AgentSessionMeter,
    /** How long the session has run so far. */
    private readonly sessionMs: () => number,
  ) {}

  async hold(millicredits: number): Promise<boolean> {
    const balance = await this.balance();
    const owed = this.meter.totalMillicredits(this.sessionMs());
    return balance >= owed + millicredits;
  }

  webSearchMade(millicredits: number): void {
    this.meter.webSearchMade(millicredits);
  }
}
