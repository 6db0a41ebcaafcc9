import type { Kysely } from 'kysely';
import { InstanceHeartbeat } from '../billing/instance-heartbeat.ts';
import { Ledger } from '../billing/ledger.ts';
import { LlmLedger } from '../billing/llm-ledger.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { TranscriptionSessionStore } from '../transcription/session-store.ts';
import type { Domain } from './domain.ts';

/**
 * Billing: the ledgers of this process (synthesis, language-model calls, transcription
 * sessions) and the heartbeat that keeps its instance row fresh and closes what dead
 * instances left open. Starting writes the heartbeat; closing removes it.
 */
export function billingDomain(deps: {
  db: Kysely<Database>;
  instanceId: string;
  metrics: Metrics;
  logger: Logger;
}) {
  const { db, instanceId, metrics } = deps;
  const ledger = new Ledger(db, instanceId);
  const llmLedger = new LlmLedger(db, instanceId);
  const transcriptionStore = new TranscriptionSessionStore(db, instanceId);
  const heartbeat = new InstanceHeartbeat(
    db,
    ledger,
    instanceId,
    deps.logger,
    [llmLedger, transcriptionStore],
    (rows) => {
      metrics.ledgerSweeps.inc();
      metrics.ledgerSweptRows.inc(rows);
    },
  );
  const domain: Domain = {
    name: 'billing',
    start: () => heartbeat.start(),
    close: () => heartbeat.stop(),
  };
  return { domain, ledger, llmLedger, transcriptionStore };
}
