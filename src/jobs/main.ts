import { hostname } from 'node:os';
import { ConfigError, loadConfig } from '../app/config.ts';
import { databaseOptions, openDatabase } from '../db/connect.ts';
import { createLogger, resolveLogFormat } from '../observability/logger.ts';
import { createRedis } from '../redis/client.ts';
import {
  FATAL_EXIT_CODE,
  installFailurePolicy,
  installTestFault,
} from '../system/failure-policy.ts';
import { startProbeListener } from '../system/probe-listener.ts';
import { checkReadiness } from '../system/readiness.ts';
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
  let stopping: Promise<void> | undefined;
  const redis = createRedis(config.REDIS_URL);
  const probes = await startProbeListener({
    host: config.JOBS_PROBE_HOST,
    port: config.JOBS_PROBE_PORT,
    readiness: () =>
      checkReadiness({ db: database.db, redis, shuttingDown: () => stopping !== undefined }),
  });
  logger.info({ probe_port: probes.port }, 'job workers running');
  let failed = false;
  // Closing the workers lets the jobs they run finish first; readiness fails meanwhile.
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await workers.close();
      await probes.close();
      redis.disconnect();
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
