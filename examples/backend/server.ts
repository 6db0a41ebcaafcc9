/**
 * The example customer backend (`npm run example:backend`): a node:http server on
 * backend-sdk that signs its own users in, starts application sessions for them against
 * the api (`AWP_API_URL`, `AWP_API_KEY`, `AWP_AGENT_ID`) and serves a page on client-sdk.
 * Logs are pino JSON lines; the first one after start is `listening` with the `url`.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { DemoAuth } from './auth.ts';
import { loadConfig } from './config.ts';
import { OrderBook } from './orders.ts';
import { buildPage } from './page.ts';
import { ExampleApp } from './routes.ts';

const logger = pino({ name: 'example-backend', level: process.env.LOG_LEVEL ?? 'info' });

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const page = await buildPage();
  const app = new ExampleApp(new DemoAuth(config.cookieSecret), page, {
    http: { baseUrl: config.apiUrl, apiKey: config.apiKey },
    agentId: config.agentId,
    orders: new OrderBook(),
    dispatchMs: config.dispatchMs,
    agentTimeoutMs: config.agentTimeoutMs,
    logger,
  });
  const server = createServer((request, response) => void app.handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info(
    { url: `http://${host}:${port}`, api: config.apiUrl, agentId: config.agentId },
    'listening',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    server.close();
    server.closeAllConnections();
    await app.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'the example backend could not start');
  process.exit(1);
});
