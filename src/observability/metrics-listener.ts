import { listenNode, type NodeListener } from '../http/node-listener.ts';
import type { Metrics } from './metrics.ts';

/** The internal metrics listener once bound. */
export type MetricsListener = NodeListener;

/**
 * Serves `GET /metrics` on a listener of its own, apart from the public API: figures such
 * as open streams, failures by code and queue depths describe the deployment and are for
 * its operator, so they stay on loopback unless `METRICS_HOST` opens them to a scraper.
 * A plain node:http server is enough for one scrape every few seconds.
 *
 * @example
 * const listener = await startMetricsListener(metrics, { host: '127.0.0.1', port: 9464 });
 * // curl http://127.0.0.1:9464/metrics
 */
export async function startMetricsListener(
  metrics: Metrics,
  options: { host: string; port: number },
): Promise<MetricsListener> {
  return listenNode((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (body) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  }, options);
}
