import type { Redis } from 'ioredis';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { settleWithin } from './deadline.ts';

/** What a process's readiness depends on: its database, its Redis, and not shutting down. */
export interface ReadinessSources {
  db: Kysely<Database>;
  redis: Redis;
  /** True once shutdown began: readiness fails so load balancers stop sending work. */
  shuttingDown: () => boolean;
}

export type CheckResult = 'ok' | 'failed';

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

const CHECK_TIMEOUT_MS = 2_000;

async function withTimeout<T>(work: Promise<T>, what: string): Promise<void> {
  await settleWithin(work, CHECK_TIMEOUT_MS, () => {
    throw new Error(`${what} timed out`);
  });
}

/** Asks the database and Redis, each bounded by two seconds. */
export async function checkReadiness(sources: ReadinessSources): Promise<Readiness> {
  const [database, redis] = await Promise.allSettled([
    withTimeout(sql`select 1`.execute(sources.db), 'database'),
    withTimeout(sources.redis.ping(), 'redis'),
  ]);
  const checks: Record<string, CheckResult> = {
    database: database.status === 'fulfilled' ? 'ok' : 'failed',
    redis: redis.status === 'fulfilled' ? 'ok' : 'failed',
    accepting: sources.shuttingDown() ? 'failed' : 'ok',
  };
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks };
}
