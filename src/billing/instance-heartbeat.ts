import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import type { Ledger } from './ledger.ts';

const HEARTBEAT_MS = 10_000;
/** An instance silent this long is considered dead; its open requests are closed. */
export const INSTANCE_STALE_AFTER_MS = 60_000;

/**
 * Keeps this process's heartbeat row fresh and closes requests abandoned by dead ones:
 * at start (a restarted process closes what its previous life left open) and then
 * periodically (a process that never came back).
 */
export class InstanceHeartbeat {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ledger: Ledger,
    private readonly instanceId: string,
    private readonly logger: Logger,
    /**
     * Other ledgers whose abandoned rows the same sweep closes (language-model calls,
     * realtime transcription sessions).
     */
    private readonly otherLedgers: readonly {
      closeAbandoned(staleAfterMs: number): Promise<number>;
    }[] = [],
    /** Told after each sweep with the rows it closed (for metrics). */
    private readonly onSweep?: (closedRows: number) => void,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    await this.sweep();
    let ticks = 0;
    this.timer = setInterval(() => {
      ticks++;
      this.beat()
        .then(() => (ticks % 3 === 0 ? this.sweep() : undefined))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'instance heartbeat failed'));
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.db
      .deleteFrom('service_instances')
      .where('instance_id', '=', this.instanceId)
      .execute();
  }

  private async beat(): Promise<void> {
    const now = new Date().toISOString();
    await this.db
      .insertInto('service_instances')
      .values({ instance_id: this.instanceId, started_at: now, last_seen_at: now })
      .onConflict((oc) => oc.column('instance_id').doUpdateSet({ last_seen_at: now }))
      .execute();
  }

  private async sweep(): Promise<void> {
    const closed = await this.ledger.closeAbandoned(INSTANCE_STALE_AFTER_MS);
    let total = closed;
    if (closed > 0)
      this.logger.warn({ closed }, 'closed synthesis requests left open by a stopped process');
    for (const ledger of this.otherLedgers) {
      const others = await ledger.closeAbandoned(INSTANCE_STALE_AFTER_MS);
      if (others > 0)
        this.logger.warn(
          { closed: others },
          'closed model calls or transcription sessions left open by a stopped process',
        );
      total += others;
    }
    this.onSweep?.(total);
  }
}
