import { hostname } from 'node:os';
import { ConfigError, loadConfig } from '../app/config.ts';
import { databaseOptions, openDatabase } from '../db/connect.ts';
import { createLogger, resolveLogFormat } from '../observability/logger.ts';
import {
  FATAL_EXIT_CODE,
  installFailurePolicy,
  installTestFault,
} from '../system/failure-policy.ts';
import { startJobWorkers } from './workers.ts';

/** The jobs process: BullMQ workers, for deployments that run them apart from the api. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.LOG_LEVEL, 'jobs', resolveLogFormat(config.LOG_FORMAT));
  let drain = async (): Promise<void> => {};
  installFailurePolicy({
    logger,
    drain: () => drain(),
    drainTimeoutMs: config.SHUTDOWN_GRACE_MS + 10_000,
  });
  installTestFault();
  const database = await openDatabase(databaseOptions(config));
  const workers = startJobWorkers({
    config,
    db: database.db,
    logger,
    instanceId: config.INSTANCE_ID ?? `jobs@${hostname()}:${process.pid}`,
  });
  logger.info('job workers running');
  let stopping: Promise<void> | undefined;
  let failed = false;
  // Closing the workers lets the jobs they run finish first.
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await workers.close();
      await database.close();
    })();
    return stopping;
  };
  drain = () => {
    failed = true;
    return stop();
  };
  const shutdown = () => void stop().then(() => process.exit(failed ? FATAL_EXIT_CODE : 0));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Startup failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
