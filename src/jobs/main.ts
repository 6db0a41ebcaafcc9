import { hostname } from 'node:os';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/connect.ts';
import { createLogger, resolveLogFormat } from '../observability/logger.ts';
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
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
  });
  const workers = startJobWorkers({
    config,
    db: database.db,
    logger,
    instanceId: config.INSTANCE_ID ?? `jobs@${hostname()}:${process.pid}`,
  });
  logger.info('job workers running');
  const stop = async () => {
    await workers.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Startup failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
