import { z } from 'zod';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { checkReadiness, type ReadinessSources } from './readiness.ts';

export interface SystemDependencies extends ReadinessSources {
  /** The OpenAPI document of every mounted route. */
  openApiDocument: () => object;
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
        const { ready, checks } = await checkReadiness(deps);
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
