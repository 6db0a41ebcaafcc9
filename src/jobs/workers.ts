import path from 'node:path';
import type { Kysely } from 'kysely';
import { AgentSessions } from '../agent-sessions/agent-sessions.ts';
import { SessionRecordings } from '../agent-sessions/session-recordings.ts';
import type { Config } from '../app/config.ts';
import { Ledger } from '../billing/ledger.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { openAudioStores } from '../storage/stores.ts';
import { expireDeliveriesBefore } from '../webhooks/deliveries.ts';
import { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import { WebhookEndpoints } from '../webhooks/endpoints.ts';
import type { AudioPersistenceJobData } from './audio-persistence-job.ts';
import { createAudioPersistenceWorker } from './audio-persistence-worker.ts';
import { LostAgentSessionSweep } from './lost-agent-sessions.ts';
import { PersistenceSweeper } from './persistence-sweeper.ts';
import { createQueue } from './queues.ts';
import { RecordingRetention } from './recording-retention.ts';
import { RetentionSweep } from './retention-sweep.ts';
import { spoolQueueName } from './spool-queue.ts';
import { startVoiceCloningWorker } from './voice-cloning.ts';

export interface JobWorkers {
  close(): Promise<void>;
}

/** The persistence spool: `AUDIO_SPOOL_DIR`, by default `DATA_DIR/persistence-spool`. */
export function audioSpoolDir(config: Config): string {
  return path.resolve(config.AUDIO_SPOOL_DIR ?? path.join(config.DATA_DIR, 'persistence-spool'));
}

/** Starts every job worker of this process; the api runs them itself in single-node mode. */
export function startJobWorkers(deps: {
  config: Config;
  db: Kysely<Database>;
  logger: Logger;
  instanceId: string;
}): JobWorkers {
  const { config, db, logger } = deps;
  const audio = config.AUDIO_PERSISTENCE
    ? startAudioPersistence(config, db, logger, deps.instanceId)
    : undefined;
  const cloning = startVoiceCloningWorker({ config, db, logger });
  const retention =
    config.RECORDING_RETENTION_DAYS > 0
      ? new RecordingRetention({
          recordings: new SessionRecordings(db, openAudioStores(config).audio),
          retentionDays: config.RECORDING_RETENTION_DAYS,
          logger,
        })
      : undefined;
  retention?.start();
  const webhooks = new WebhookDispatcher({
    db,
    endpoints: new WebhookEndpoints(
      db,
      SecretBox.fromConfig({ secretsKey: config.SECRETS_KEY, dataDir: config.DATA_DIR }),
    ),
    logger,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  });
  webhooks.start();
  const deliveryRetention = new RetentionSweep({
    expireBefore: (cutoff, limit) => expireDeliveriesBefore(db, cutoff, limit),
    retentionDays: config.WEBHOOK_DELIVERY_RETENTION_DAYS,
    what: 'webhook deliveries',
    logger,
    batch: 500,
  });
  deliveryRetention.start();
  const lostSessions = new LostAgentSessionSweep({
    sessions: new AgentSessions(db, {
      heartbeatTimeoutMs: config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS,
    }),
    intervalMs: Math.max(1_000, Math.floor(config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS / 2)),
    logger,
  });
  lostSessions.start();
  return {
    close: async () => {
      await Promise.all([
        audio?.close(),
        cloning.close(),
        retention?.close(),
        webhooks.close(),
        deliveryRetention.close(),
        lostSessions.close(),
      ]);
    },
  };
}

/** The persistence worker and, beside it, the sweeper of files no queued batch will store. */
function startAudioPersistence(
  config: Config,
  db: Kysely<Database>,
  logger: Logger,
  instanceId: string,
): JobWorkers {
  const ledger = new Ledger(db, instanceId);
  const spoolDir = audioSpoolDir(config);
  const worker = createAudioPersistenceWorker({
    connectionUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    spoolDir,
    store: openAudioStores(config).audio,
    onPersisted: (stored) => ledger.markAudioPersistedMany(stored),
    logger,
  });
  const queue = createQueue<AudioPersistenceJobData>(spoolQueueName(spoolDir), {
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    logger,
  });
  const sweeper = new PersistenceSweeper({ spoolDir, queue, ledger, logger });
  sweeper.start();
  return {
    close: async () => {
      await sweeper.close();
      await Promise.all([worker.close(), queue.close()]);
    },
  };
}
