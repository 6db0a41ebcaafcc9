import type { Authenticator } from '../auth/authenticate.ts';
import { BodyBudget } from '../http/body-budget.ts';
import { routeHandler } from '../http/pipeline.ts';
import { type Listener, UwsHttpServer } from '../http/uws/server.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { type MetricsListener, startMetricsListener } from '../observability/metrics-listener.ts';
import type { OriginAllowlist } from '../tts/stream/origins.ts';
import type { Config, Environment } from './config.ts';
import type { Domain } from './domain.ts';

/**
 * The uWS server of the domains' routes, in the order the domains are listed: each HTTP
 * route behind authentication with its body limit (`BODY_LIMIT_BYTES` unless it sets
 * one), then the pages, and the WebSockets.
 */
export function mountDomains(
  domains: readonly Domain[],
  deps: {
    config: Config;
    authenticator: Authenticator;
    origins: OriginAllowlist;
    uploadDir: string;
    logger: Logger;
    metrics: Metrics;
  },
): UwsHttpServer {
  const { config, authenticator } = deps;
  const routes = [
    ...domains.flatMap((domain) => domain.routes ?? []),
    ...domains.flatMap((domain) => domain.internalRoutes ?? []),
  ];
  return new UwsHttpServer({
    routes: [
      ...routes.map((route) => ({
        method: route.method,
        pattern: route.path,
        bodyLimitBytes: route.bodyLimitBytes ?? config.BODY_LIMIT_BYTES,
        ...routeHandler(route, authenticator),
        ...(route.cors ? { cors: route.cors } : {}),
        ...(route.spoolBody ? { spoolBody: true } : {}),
      })),
      ...domains.flatMap((domain) => domain.pages ?? []),
    ],
    allowsOrigin: (origin) => deps.origins.allows(origin),
    bodyBudget: new BodyBudget(config.BODY_BUDGET_BYTES),
    spoolDirectory: deps.uploadDir,
    webSockets: domains.flatMap((domain) => domain.webSockets ?? []),
    hostEnvironments: config.ENVIRONMENT_HOSTS,
    logger: deps.logger,
    metrics: deps.metrics,
  });
}

/**
 * Binds the public listeners (recording each environment's port in `listenerPorts`), then
 * the internal metrics listener. A metrics port that cannot be bound is logged and left:
 * metrics are for the operator, and a taken port must not keep the API down.
 */
export async function listenWithMetrics(
  server: UwsHttpServer,
  listeners: Listener[],
  deps: {
    config: Config;
    metrics: Metrics;
    logger: Logger;
    listenerPorts: Partial<Record<Environment, number>>;
  },
): Promise<{ bound: (Listener & { port: number })[]; metricsListener?: MetricsListener }> {
  const { config, logger } = deps;
  const bound = await server.listen(listeners);
  for (const listener of bound) deps.listenerPorts[listener.environment] = listener.port;
  try {
    const metricsListener = await startMetricsListener(deps.metrics, {
      host: config.METRICS_HOST,
      port: config.METRICS_PORT,
    });
    logger.info(
      { environment: 'metrics', host: metricsListener.host, port: metricsListener.port },
      'listening',
    );
    return { bound, metricsListener };
  } catch (error) {
    logger.error({ err: error, port: config.METRICS_PORT }, 'metrics listener not started');
    return { bound };
  }
}
