// Streamed response bodies through the uWS adapter: pieces leave as they are produced,
// the producer waits on backpressure, a client disconnect returns the iterator, and a
// producer failure cuts the connection.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../../src/http/types.ts';
import { UwsHttpServer } from '../../../src/http/uws/server.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { Metrics } from '../../../src/observability/metrics.ts';

type Producer = (request: HttpRequest) => AsyncIterable<Buffer | string>;

describe('streamed response bodies', () => {
  let server: UwsHttpServer;
  let base = '';
  let producer: Producer = async function* () {};

  beforeAll(async () => {
    server = new UwsHttpServer({
      routes: [
        {
          method: 'GET',
          pattern: '/stream',
          bodyLimitBytes: 1024,
          handler: async (request): Promise<HttpResponse> => ({
            status: 200,
            headers: { 'content-type': 'text/plain' },
            stream: producer(request),
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
    base = `http://127.0.0.1:${bound?.port}`;
  });
  afterAll(() => server.close());

  /** Opens the stream; resolves with the response once headers arrived. */
  const open = () =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(`${base}/stream`, resolve);
      req.on('error', reject);
    });

  it('sends each piece as soon as it is produced, chunked', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let producedSecond = false;
    producer = async function* () {
      yield 'first;';
      await gate;
      producedSecond = true;
      yield 'second';
    };
    const response = await open();
    expect(response.headers['transfer-encoding']).toBe('chunked');
    const [first] = (await new Promise((resolve) =>
      response.once('data', (c) => resolve([c])),
    )) as [Buffer];
    expect(first.toString()).toBe('first;');
    expect(producedSecond).toBe(false);
    let rest = '';
    response.on('data', (chunk: Buffer) => {
      rest += chunk.toString();
    });
    release();
    await new Promise((resolve) => response.once('end', resolve));
    expect(rest).toBe('second');
    expect(server.inFlight).toBe(0);
  });

  it('aborts the request signal and returns the iterator when the client leaves', async () => {
    let returned = false;
    let aborted!: Promise<void>;
    producer = async function* (request) {
      aborted = new Promise((resolve) => request.signal.addEventListener('abort', () => resolve()));
      try {
        yield 'hello';
        await aborted;
        yield 'never read';
      } finally {
        returned = true;
      }
    };
    const response = await open();
    await new Promise((resolve) => response.once('data', resolve));
    response.destroy();
    await aborted;
    for (let i = 0; i < 40 && !returned; i++) await new Promise((r) => setTimeout(r, 25));
    expect(returned).toBe(true);
    expect(server.inFlight).toBe(0);
  });

  it('pauses the producer while the client does not read', async () => {
    const pieces = 32;
    const piece = Buffer.alloc(1024 * 1024, 97);
    let produced = 0;
    producer = async function* () {
      for (let i = 0; i < pieces; i++) {
        produced++;
        yield piece;
      }
    };
    const response = await open();
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Socket buffers hold a few MiB; the producer must be waiting well before the end.
    expect(produced).toBeLessThan(pieces);
    let bytes = 0;
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
    });
    response.resume();
    await new Promise((resolve) => response.once('end', resolve));
    expect(bytes).toBe(pieces * piece.byteLength);
    expect(produced).toBe(pieces);
  });

  it('cuts the connection when the producer fails, so the client never sees a clean end', async () => {
    producer = async function* () {
      yield 'partial';
      throw new Error('producer failed');
    };
    const outcome = await new Promise<string>((resolve) => {
      const req = http.get(`${base}/stream`, (response) => {
        response.on('data', () => {});
        response.once('end', () => resolve('end'));
        response.once('aborted', () => resolve('cut'));
        response.once('error', () => resolve('cut'));
      });
      req.once('error', () => resolve('cut'));
    });
    expect(outcome).toBe('cut');
  });
});
