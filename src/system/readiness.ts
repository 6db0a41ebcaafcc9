import type { Redis } from 'ioredis';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';

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
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out`)), CHECK_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
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
