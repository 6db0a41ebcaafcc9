import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link startWebhookReceiver} received. */
export interface WebhookHit {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  receivedAtMs: number;
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/**
 * A customer's webhook receiver: an HTTP server on 127.0.0.1 that records every request;
 * `answer` replies (200 by default) and may be replaced to answer otherwise.
 */
export async function startWebhookReceiver() {
  const hits: WebhookHit[] = [];
  const receiver = {
    hits,
    connections: 0,
    answer: (_hit: WebhookHit, res: ServerResponse, _index: number): void | Promise<void> => {
      res.end('ok');
    },
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    port: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const hit = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      hits.push({ ...hit, receivedAtMs: Date.now() });
      void receiver.answer(hits.at(-1) as WebhookHit, res, hits.length - 1);
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  receiver.port = port;
  return receiver;
}
