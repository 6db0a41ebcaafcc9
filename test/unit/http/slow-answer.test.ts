// A slow answer to a request whose whole body arrived with its headers, through the uWS
// adapter: the route checks the request before reading the body (as every route does:
// authentication before the body), and that check waits on I/O, so the body is read after
// the socket was paused. The answer, 13 s later, still reaches the client (uWS's own idle
// timeout is 10 s), and the next request on the same connection is read and answered.

import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../../src/http/types.ts';
import { UwsHttpServer } from '../../../src/http/uws/server.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { Metrics } from '../../../src/observability/metrics.ts';

/** Longer than uWS's idle timeout (10 s, checked every 4 s). */
const ANSWER_AFTER_MS = 13_000;

/** Writes `requests` on one connection, each in one piece, and reads the answers' heads. */
function onOneConnection(port: number, requests: string[]): Promise<string[]> {
  return new Promise((resolve) => {
    const heads: string[] = [];
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(requests[0] ?? ''));
    socket.on('data', (data) => {
      text += data.toString('latin1');
      for (;;) {
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = text.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (text.length < end + 4 + length) return;
        heads.push(`${head.split('\r\n')[0]} ${text.slice(end + 4, end + 4 + length)}`);
        text = text.slice(end + 4 + length);
        if (heads.length === requests.length) {
          socket.end();
          return;
        }
        socket.write(requests[heads.length] ?? '');
      }
    });
    socket.on('close', () => resolve(heads));
  });
}

const post = (path: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\n\r\n${body}`;

describe('a slow answer to a request whose body came with its headers', () => {
  let server: UwsHttpServer;
  let port = 0;

  beforeAll(async () => {
    server = new UwsHttpServer({
      routes: [
        {
          method: 'POST',
          pattern: '/slow',
          bodyLimitBytes: 1024,
          // A check that waits on I/O (a database, a token store) before the body is read.
          beforeBody: () => sleep(50),
          handler: async (request): Promise<HttpResponse> => {
            await sleep(ANSWER_AFTER_MS);
            return { status: 200, body: `slow:${request.body.toString()}` };
          },
        },
        {
          method: 'POST',
          pattern: '/quick',
          bodyLimitBytes: 1024,
          beforeBody: () => sleep(50),
          handler: async (request): Promise<HttpResponse> => ({
            status: 200,
            body: `quick:${request.body.toString()}`,
          }),
        },
      ],
      hostEnvironments: new Map(),
      logger: createLogger('silent'),
      metrics: new Metrics(),
    });
    const [bound] = await server.listen([
      { host: '127.0.0.1', port: 0, environment: 'production' },
    ]);
    port = bound?.port ?? 0;
  });
  afterAll(() => server.close());

  it('answers after 13 s, then reads and answers the next request on the connection', async () => {
    const answers = await onOneConnection(port, [post('/slow', 'one'), post('/quick', 'two')]);
    expect(answers).toEqual(['HTTP/1.1 200 OK slow:one', 'HTTP/1.1 200 OK quick:two']);
  }, 30_000);
});
