// WebSocket upgrades completed after an await (authentication on PostgreSQL) through the
// uWS adapter: every accepted socket stays open and answers its first frame.
//
// The uWS builds we use (3.0.6 and 20.30) have a defect in `HttpResponse.cork`: when it
// corks a socket from outside uWS's own callbacks and the callback upgrades it, the
// upgraded WebSocket usually stays at the same address, cork() misses the upgrade and
// reads the freed HTTP response state from heap bytes the open handler may already have
// reused. If those bytes carry uWS's connection-close bit, the socket is shut down right
// after `open`: the client sees 1006 and no event. The route below makes that heap state
// likely on purpose: its factory (run inside `open`) allocates native buffers filled
// with 0x10, the connection-close bit, so a corked async upgrade loses most sockets
// (about 9 in 10 here) while the adapter's uncorked upgrade loses none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { UwsHttpServer } from '../../../src/http/uws/server.ts';
import type { WebSocketRoute } from '../../../src/http/websocket.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { Metrics } from '../../../src/observability/metrics.ts';

/** uWS's HTTP_CONNECTION_CLOSE state bit, as a byte pattern. */
const CONNECTION_CLOSE_BIT = 0x10;
/** Native allocations of many small sizes, so that freed chunks of any size get reused. */
const CHURN_SIZES = Array.from({ length: 64 }, (_, i) => (i + 1) * 8);
const CONNECTIONS = 40;

/** The buffers each opened socket allocated: kept so they stay in use, one entry per `open`. */
let churn: Buffer[][] = [];

const echoRoute: WebSocketRoute = {
  path: '/echo',
  maxFrameBytes: 1024,
  accept: async () => {
    // Resolve from a timer, outside any uWS callback, like a database round trip.
    await new Promise((resolve) => setTimeout(resolve, 1));
    return (connection) => {
      churn.push(
        CHURN_SIZES.map((size) => Buffer.allocUnsafeSlow(size).fill(CONNECTION_CLOSE_BIT)),
      );
      return {
        opened: () => {},
        receive: (value) => connection.send(JSON.stringify({ echo: value })),
        drained: () => {},
        lost: () => {},
      };
    };
  },
};

describe('asynchronous WebSocket upgrades', () => {
  let server: UwsHttpServer;
  let url = '';

  beforeAll(async () => {
    server = new UwsHttpServer({
      routes: [],
      webSockets: [echoRoute],
      hostEnvironments: new Map(),
      logger: createLogger('silent'),
      metrics: new Metrics(),
    });
    const [bound] = await server.listen([
      { host: '127.0.0.1', port: 0, environment: 'production' },
    ]);
    url = `ws://127.0.0.1:${bound?.port}/echo`;
  });
  afterAll(() => server.close());

  /** Opens one socket, sends a frame at once, resolves with the echo or how it closed. */
  const roundTrip = (n: number) =>
    new Promise<string>((resolve) => {
      const socket = new WebSocket(url, { perMessageDeflate: false });
      socket.on('open', () => socket.send(JSON.stringify({ n })));
      socket.on('message', (data) => {
        resolve(data.toString());
        socket.close();
      });
      socket.on('close', (code) => resolve(`closed ${code}`));
      socket.on('error', () => {});
    });

  it('keeps every socket upgraded after an await open, one after another', async () => {
    const outcomes: string[] = [];
    churn = [];
    for (let n = 0; n < CONNECTIONS; n++) outcomes.push(await roundTrip(n));
    expect(churn).toHaveLength(CONNECTIONS);
    expect(outcomes).toEqual(
      Array.from({ length: CONNECTIONS }, (_, n) => JSON.stringify({ echo: { n } })),
    );
  });

  it('keeps every socket upgraded when many open at once', async () => {
    churn = [];
    const outcomes = await Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => roundTrip(n)));
    expect(churn).toHaveLength(CONNECTIONS);
    expect(outcomes).toEqual(
      Array.from({ length: CONNECTIONS }, (_, n) => JSON.stringify({ echo: { n } })),
    );
  });
});
