import type { ToolBilling } from '../agents/capabilities/agent-tool.ts';
import type { LlmLedger, LlmToolCharges } from '../billing/llm-ledger.ts';

/**
 * The priced tool calls of one text conversation turn, on the turn's ledger row: each
 * holds its price there first (`reserveMore`, as a further model call does), and the
 * searches made are charged when the turn settles. A turn that fails or is cancelled
 * returns everything it held, searches included.
 */
export class TurnToolBilling implements ToolBilling {
  readonly charges: LlmToolCharges = { webSearches: 0, webSearchMillicredits: 0 };

  constructor(
    private readonly ledger: LlmLedger,
    private readonly requestId: string,
    private readonly workspaceId: string,
  ) {}

  hold(millicredits: number): Promise<boolean> {
    return this.ledger.reserveMore(this.requestId, this.workspaceId, millicredits);
  }

  webSearchMade(millicredits: number): void {
    this.charges.webSearches += 1;
    this.charges.webSearchMillicredits += millicredits;
  }
}
