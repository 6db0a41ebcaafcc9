import type { Ledger } from '../billing/ledger.ts';
import type { Logger } from '../observability/logger.ts';
import type { CatalogVoice } from '../voices/catalog.ts';
import { RouteFailover } from './failover.ts';

/**
 * The failover of one synthesis request, wired to its ledger row (which then names the
 * route that served) and to the operator log (each failover is a warning with the route).
 */
export function failoverFor(
  voice: CatalogVoice,
  requestId: string,
  ledger: Ledger,
  logger: Logger,
): RouteFailover {
  return new RouteFailover(voice.routes, {
    onFailover: (failed, next, error) =>
      logger.warn(
        { request_id: requestId, route: failed.id, next_route: next.id, err: error },
        'route failed before audio; failing over',
      ),
    onServe: async (route) => {
      if (route !== voice.route) await ledger.recordServingRoute(requestId, route.id);
    },
  });
}
