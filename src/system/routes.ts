import type { Redis } from 'ioredis';
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';

export interface SystemDependencies {
  db: Kysely<Database>;
  redis: Redis;
  /** The OpenAPI document of every mounted route. */
  openApiDocument: () => object;
  /** True once shutdown began: readiness fails so load balancers stop sending traffic. */
  shuttingDown: () => boolean;
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

const readinessSchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.enum(['ok', 'failed'])),
});

/**
 * Health, readiness and the OpenAPI document: no authentication. Metrics are served apart,
 * on the internal listener (`startMetricsListener`).
 */
export function systemRoutes(deps: SystemDependencies): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/healthz',
      operationId: 'health',
      summary: 'Liveness: the process serves requests.',
      tags: ['system'],
      auth: { kind: 'none' },
      responses: { 200: { description: 'Alive.', schema: z.object({ status: z.literal('ok') }) } },
      handle: async () => ({ status: 200, body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      operationId: 'ready',
      summary: 'Readiness: the database and Redis answer.',
      tags: ['system'],
      auth: { kind: 'none' },
      responses: {
        200: { description: 'Ready.', schema: readinessSchema },
        503: { description: 'Not ready.', schema: readinessSchema },
      },
      handle: async () => {
        const checks: Record<string, 'ok' | 'failed'> = {};
        const [database, redis] = await Promise.allSettled([
          withTimeout(sql`select 1`.execute(deps.db), 'database'),
          withTimeout(deps.redis.ping(), 'redis'),
        ]);
        checks.database = database.status === 'fulfilled' ? 'ok' : 'failed';
        checks.redis = redis.status === 'fulfilled' ? 'ok' : 'failed';
        checks.accepting = deps.shuttingDown() ? 'failed' : 'ok';
        const ready = Object.values(checks).every((c) => c === 'ok');
        return {
          status: ready ? 200 : 503,
          body: { status: ready ? 'ready' : 'not_ready', checks },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/openapi.json',
      operationId: 'openapi',
      summary: 'This OpenAPI 3.1 document.',
      tags: ['system'],
      auth: { kind: 'none' },
      responses: { 200: { description: 'The document.', schema: z.object({}).loose() } },
      handle: async () => {
        return { status: 200, body: deps.openApiDocument() };
      },
    }),
  ];
}
