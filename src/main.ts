import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { createStarterAgent } from './agents/starter-agent.ts';
import { type Api, createApi } from './app/app.ts';
import { type Config, ConfigError, loadConfig } from './app/config.ts';
import { databaseOptions, openDatabase } from './db/connect.ts';
import type { Database } from './db/schema.ts';
import { nativeBindingLoaded } from './http/uws/native.ts';
import type { Listener } from './http/uws/server.ts';
import { createLogger, type Logger, resolveLogFormat } from './observability/logger.ts';
import { createRedis } from './redis/client.ts';
import { loadSttConfig, type SttConfig } from './stt/config.ts';
import { startBanner } from './system/banner.ts';
import {
  FATAL_EXIT_CODE,
  installFailurePolicy,
  installTestFault,
} from './system/failure-policy.ts';
import { type BootstrapResult, bootstrapWorkspace } from './workspaces/bootstrap.ts';

/** The configuration, or exit 78 with the message when it is invalid. */
function loadConfigs(): { config: Config; sttConfig: SttConfig } {
  try {
    // Realtime transcription listens through the worker's speech-to-text engines.
    return { config: loadConfig(), sttConfig: loadSttConfig() };
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/**
 * Keys just created must reach the operator once; a person at a terminal also gets the
 * URLs and a first command. Neither goes through the logger.
 */
async function printBanner(
  config: Config,
  db: Kysely<Database>,
  bound: readonly (Listener & { port: number })[],
  created: BootstrapResult | null,
): Promise<void> {
  const urlOf = (environment: string) => {
    const listener = bound.find((l) => l.environment === environment);
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
    return `http://${host}:${listener?.port ?? 0}`;
  };
  const first = await db
    .selectFrom('workspaces')
    .select('id')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  process.stdout.write(
    startBanner({
      productionUrl: urlOf('production'),
      developmentUrl: urlOf('development'),
      created,
      workspaceId: first?.id,
      demoUrl: config.DEMO_PAGE ? `${urlOf('development')}/demo` : undefined,
      dashboardUrl: `${urlOf('development')}/operator`,
    }),
  );
}

/**
 * Stops listening, lets requests in flight finish (bounded), closes everything; once,
 * however many signals or failures ask.
 */
function shutdownSequence(
  config: Config,
  api: Api,
  redis: Redis,
  database: { close(): Promise<void> },
  logger: Logger,
): (reason: string) => Promise<void> {
  let stopping: Promise<void> | undefined;
  return (reason) => {
    stopping ??= (async () => {
      logger.info({ signal: reason, in_flight: api.server.inFlight }, 'shutting down');
      api.beginShutdown();
      api.server.stopListening();
      const drained = await api.server.drain(config.SHUTDOWN_GRACE_MS);
      if (!drained) logger.warn({ in_flight: api.server.inFlight }, 'grace period over');
      await api.close();
      redis.disconnect();
      await database.close();
      logger.info('stopped');
    })();
    return stopping;
  };
}

/** The api process: config -> database -> Redis -> routes -> listen; graceful shutdown. */
async function main(): Promise<void> {
  const { config, sttConfig } = loadConfigs();
  const logFormat = resolveLogFormat(config.LOG_FORMAT);
  const logger = createLogger(config.LOG_LEVEL, 'api', logFormat);
  // Until the api runs there is nothing to drain; then `stop` below.
  let drain = async (): Promise<void> => {};
  installFailurePolicy({
    logger,
    drain: () => drain(),
    drainTimeoutMs: config.SHUTDOWN_GRACE_MS + 10_000,
  });
  installTestFault();
  if (!nativeBindingLoaded()) {
    logger.fatal('the native uWebSockets.js binary did not load; refusing the slow fallback');
    process.exit(1);
  }

  const database = await openDatabase(databaseOptions(config));
  logger.info({ dialect: database.dialect }, 'database ready');
  const redis = createRedis(config.REDIS_URL);

  let created: BootstrapResult | null = null;
  if (config.BOOTSTRAP_WORKSPACE) created = await bootstrapWorkspace(database.db);

  const api = createApi({ config, sttConfig, db: database.db, redis, logger });
  await api.start();
  if (created) {
    // A first start gets a published Agent to talk to in the demo page.
    await createStarterAgent(api.agents, created.workspaceId, 'development').catch((error) =>
      logger.warn({ err: error }, 'the starter Agent could not be created'),
    );
  }
  const bound = await api.listen([
    { host: config.HOST, port: config.PORT, environment: 'production' },
    { host: config.HOST, port: config.DEV_PORT, environment: 'development' },
  ]);
  for (const listener of bound) {
    const { environment, host, port } = listener;
    logger.info({ environment, host, port, uws: 'native' }, 'listening');
  }
  if (created || logFormat === 'pretty') await printBanner(config, database.db, bound, created);

  const stop = shutdownSequence(config, api, redis, database, logger);
  let failed = false;
  drain = () => {
    failed = true;
    return stop('fatal');
  };
  const shutdown = (signal: string) => {
    // A signal during a fatal drain must not turn the exit into a success.
    void stop(signal).then(() => process.exit(failed ? FATAL_EXIT_CODE : 0));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Startup failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  if (error instanceof Error && error.cause)
    process.stderr.write(`  cause: ${String(error.cause)}\n`);
  process.exit(1);
});
