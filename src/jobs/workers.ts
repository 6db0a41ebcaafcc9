import path from 'node:path';
import type { Kysely } from 'kysely';
import { Ledger } from '../billing/ledger.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import { LocalDiskAudioStore } from '../storage/local-disk-store.ts';
import { createAudioPersistenceWorker } from './audio-persistence.ts';
import { startVoiceCloningWorker } from './voice-cloning.ts';

export interface JobWorkers {
  close(): Promise<void>;
}

/** Directory of persisted audio on the local disk. */
export function audioStorageDir(config: Config): string {
  return path.resolve(config.DATA_DIR, 'audio');
}

/** Starts every job worker of this process; the api runs them itself in single-node mode. */
export function startJobWorkers(deps: {
  config: Config;
  db: Kysely<Database>;
  logger: Logger;
  instanceId: string;
}): JobWorkers {
  const { config, db, logger } = deps;
  const ledger = new Ledger(db, deps.instanceId);
  const audio = config.AUDIO_PERSISTENCE
    ? createAudioPersistenceWorker({
        connectionUrl: config.REDIS_URL,
        prefix: config.REDIS_PREFIX,
        store: new LocalDiskAudioStore(audioStorageDir(config)),
        onPersisted: (requestId, location) => ledger.markAudioPersisted(requestId, location),
        logger,
      })
    : undefined;
  const cloning = startVoiceCloningWorker({ config, db, logger });
  return {
    close: async () => {
      await Promise.all([audio?.close(), cloning.close()]);
    },
  };
}
