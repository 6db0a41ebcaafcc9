import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  UpstreamHttpClient,
  UpstreamTransportError,
} from '../../../../src/tts/providers/upstream/index.ts';

const servers: Server[] = [];
const clients: UpstreamHttpClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/**
 * A server that answers the first request on each connection and drops the connection
 * without an answer on any later one, as a vendor does whose idle timeout closed the
 * connection just as the client reused it.
 */
async function oneShotConnectionServer() {
  const served = new WeakMap<Socket, number>();
  let connections = 0;
  let dropped = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const count = served.get(req.socket) ?? 0;
      served.set(req.socket, count + 1);
      if (count > 0) {
        dropped += 1;
        req.socket.destroy();
        return;
      }
      res.end('ok');
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ connections, dropped }),
  };
}

async function post(client: UpstreamHttpClient) {
  const response = await client.send(
    { method: 'POST', path: '/v1/x', headers: {}, body: Buffer.from('{}') },
    new AbortController().signal,
  );
  return { status: response.status, text: await response.text() };
}

describe('UpstreamHttpClient', () => {
  it('resends once on a new connection when a reused one was closed before answering', async () => {
    const server = await oneShotConnectionServer();
    const client = new UpstreamHttpClient({ baseUrl: server.url });
    clients.push(client);
    expect(await post(client)).toEqual({ status: 200, text: 'ok' });
    expect(await post(client)).toEqual({ status: 200, text: 'ok' });
    expect(server.stats()).toEqual({ connections: 2, dropped: 1 });
  });

  it('joins the base URL path prefix and the request path', async () => {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    const client = new UpstreamHttpClient({ baseUrl: `http://127.0.0.1:${port}/proxy/` });
    clients.push(client);
    await post(client);
    expect(paths).toEqual(['/proxy/v1/x']);
  });

  it('reports a refused connection as connection_failed', async () => {
    const server = await oneShotConnectionServer();
    const url = server.url;
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const client = new UpstreamHttpClient({ baseUrl: url });
    clients.push(client);
    const error = await post(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTransportError);
    expect((error as UpstreamTransportError).kind).toBe('connection_failed');
  });

  it('refuses a base URL that is not http or https', () => {
    expect(() => new UpstreamHttpClient({ baseUrl: 'ftp://example.com' })).toThrow(RangeError);
  });
});
