import { listenNode, type NodeListener } from '../http/node-listener.ts';
import type { Readiness } from './readiness.ts';

/** A process's probe listener once bound. */
export type ProbeListener = NodeListener;

/**
 * `GET /healthz` (the process runs) and `GET /readyz` (it can do its work) for a process
 * without a public API, such as the jobs process: what docker's healthcheck and
 * Kubernetes' liveness and readiness probes ask. Same answers as the api's routes.
 *
 * @example
 * const probes = await startProbeListener({ host: '127.0.0.1', port: 8083, readiness });
 * // curl http://127.0.0.1:8083/readyz → {"status":"ready","checks":{...}}
 */
export async function startProbeListener(options: {
  host: string;
  port: number;
  readiness: () => Promise<Readiness>;
}): Promise<ProbeListener> {
  return listenNode((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const json = (status: number, body: object) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'GET' && path === '/healthz') {
      json(200, { status: 'ok' });
    } else if (request.method === 'GET' && path === '/readyz') {
      options.readiness().then(
        ({ ready, checks }) =>
          json(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks }),
        () => json(503, { status: 'not_ready', checks: {} }),
      );
    } else {
      json(404, { status: 'not_found' });
    }
  }, options);
}
