import type { Logger, ToolBilling, WorkerSessionStore } from '../../src/worker-boundary/index.ts';
import type { AgentSessionMeter } from './usage.ts';

/**
 * The priced tool calls of an Agent session (web searches with the deployment's engine). A
 * session is charged once, when it ends, so nothing is reserved: a search is made only
 * when the workspace's balance covers what the session owes so far plus its price, and a
 * search made joins the session's charge (AgentSessionMeter) at the same price text
 * conversations pay, and is stored with the session's usage as it is made, so the job that
 * ends the session (or the api, when the session's last job was lost) charges it even when
 * the job that made it was lost.
 */
export class SessionToolBilling implements ToolBilling {
  constructor(
    /** The workspace's credit balance now, in millicredits. */
    private readonly balance: () => Promise<number>,
    private readonly meter: AgentSessionMeter,
    /** How long the session has run so far. */
    private readonly sessionMs: () => number,
    /** Where the session's usage is stored, and which session it is. */
    private readonly usage: { sessions: Pick<WorkerSessionStore, 'addUsage'>; sessionId: string },
    private readonly log: Logger,
  ) {}

  async hold(millicredits: number): Promise<boolean> {
    const balance = await this.balance();
    const owed = this.meter.totalMillicredits(this.sessionMs());
    return balance >= owed + millicredits;
  }

  /** Resolves once the search is stored (a failed write is logged: it is still charged here). */
  async webSearchMade(millicredits: number): Promise<void> {
    this.meter.webSearchMade(millicredits);
    try {
      await this.usage.sessions.addUsage(this.usage.sessionId, {
        webSearches: 1,
        webSearchMillicredits: millicredits,
      });
    } catch (error) {
      this.log.warn({ err: error }, 'web search not stored with the session usage');
    }
  }
}
