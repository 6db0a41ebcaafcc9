import type { AnyRoute } from '../http/route.ts';
import type { MountedRoute } from '../http/uws/server.ts';
import type { WebSocketRoute } from '../http/websocket.ts';
import type { Logger } from '../observability/logger.ts';

/**
 * One part of the api as `createApi` composes it, on the model of fastify's register and
 * onClose: what it serves, what it starts before the api listens and what it closes at
 * shutdown. Domains start and close in the order they are listed.
 */
export interface Domain {
  /** Names the domain in the shutdown log, so a shutdown that hangs names where. */
  readonly name: string;
  /** Its `/v1` routes: what `/v1/openapi.json` describes. */
  readonly routes?: readonly AnyRoute[];
  /** Routes served beside `/v1` and kept out of its OpenAPI document (the operator API). */
  readonly internalRoutes?: readonly AnyRoute[];
  /** Routes mounted as they are, outside `/v1`: web pages and their files. */
  readonly pages?: readonly MountedRoute[];
  readonly webSockets?: readonly WebSocketRoute[];
  /** Work that must run before the api listens. */
  start?(): Promise<void>;
  close?(): Promise<void>;
}

/** Starts the domains one after the other, in the order listed. */
export async function startDomains(domains: readonly Domain[]): Promise<void> {
  for (const domain of domains) await domain.start?.();
}

/**
 * Closes the domains one after the other, in the order listed. Each is logged at debug, so
 * a shutdown that hangs names the domain it hangs in.
 */
export async function closeDomains(domains: readonly Domain[], logger: Logger): Promise<void> {
  for (const domain of domains) {
    if (!domain.close) continue;
    logger.debug({ step: domain.name }, 'closing');
    await domain.close();
  }
}
