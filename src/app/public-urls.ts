import { configuredWebsocketUrl } from '../tts/stream/token-routes.ts';
import type { Config, Environment } from './config.ts';

/**
 * The api's public addresses per environment: the configured base URLs, and the
 * `/v1/tts/stream` WebSocket URL, which falls back to the port each listener bound
 * (recorded in `listenerPorts` once the api listens).
 */
export function publicUrls(config: Config) {
  const publicBaseUrls: Partial<Record<Environment, string>> = {
    ...(config.PUBLIC_BASE_URL ? { production: config.PUBLIC_BASE_URL } : {}),
    ...(config.PUBLIC_DEV_BASE_URL ? { development: config.PUBLIC_DEV_BASE_URL } : {}),
  };
  const listenerPorts: Partial<Record<Environment, number>> = {};
  const websocketUrl = (environment: Environment) =>
    configuredWebsocketUrl(
      environment === 'production' ? config.PUBLIC_WS_URL : config.PUBLIC_DEV_WS_URL,
      publicBaseUrls[environment],
      listenerPorts[environment] ?? (environment === 'production' ? config.PORT : config.DEV_PORT),
    );
  return { publicBaseUrls, listenerPorts, websocketUrl };
}
