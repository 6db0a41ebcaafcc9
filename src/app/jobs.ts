import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { type JobWorkers, startJobWorkers } from '../jobs/workers.ts';
import type { Logger } from '../observability/logger.ts';
import type { Config } from './config.ts';
import type { Domain } from './domain.ts';

/**
 * The background job workers, run in this process when RUN_JOBS_IN_PROCESS is on (a single
 * node); otherwise the jobs process runs them and this domain does nothing.
 */
export function jobWorkersDomain(deps: {
  config: Config;
  db: Kysely<Database>;
  logger: Logger;
  instanceId: string;
}): Domain {
  let workers: JobWorkers | undefined;
  return {
    name: 'job workers',
    start: async () => {
      if (deps.config.RUN_JOBS_IN_PROCESS) workers = startJobWorkers(deps);
    },
    close: async () => workers?.close(),
  };
}
