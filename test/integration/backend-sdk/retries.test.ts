// Retries, timeouts and aborts of the server SDK against a small local HTTP server whose
// answers each test scripts, counting the attempts that reach it exactly.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import {
  AwpAbortError,
  AwpClient,
  AwpConnectionError,
  AwpError,
  AwpInvalidResponseError,
  AwpTimeoutError,
  InvalidRequestError,
  ProviderError,
  RateLimitedError,
  ServiceUnavailableError,
} from '../../../backend-sdk/src/index.ts';
import { waitFor } from '../../helpers/wait.ts';

type Handler = (request: IncomingMessage, response: ServerResponse, attempt: number) => void;

const VOICES = { voices: [] };
/** Backoff so long that a prompt retry can only have come from `Retry-After`. */
const HOUR_MS = 3_600_000;

function errorBody(code: string, retryable: boolean, requestId = 'req-test') {
  return JSON.stringify({ event: 'error', request_id: requestId, code, retryable, detail: code });
}

describe('server SDK retries, timeouts and aborts', () => {
  let server: Server;
  let baseUrl: string;
  let handler: Handler;
  let attempts: { method: string; url: string; authorization: string | undefined }[] = [];
  const hanging = new Set<ServerResponse>();

  const client = (options: Partial<ConstructorParameters<typeof AwpClient>[0]> = {}) =>
    new AwpClient({
      apiKey: 'awp_test_key',
      baseUrl,
      // Short waits so the retrying tests stay quick; tests of Retry-After override them.
      retry: { initialDelayMs: 5, maxDelayMs: 20 },
      ...options,
    });
  const reply = (response: ServerResponse, status: number, body: string, headers = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body);
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      attempts.push({
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
      });
      request.resume();
      handler(request, response, attempts.length);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => {
    for (const response of hanging) response.destroy();
    hanging.clear();
    attempts = [];
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('retries a retryable 503 and succeeds on the third attempt', async () => {
    handler = (_request, response, attempt) =>
      attempt < 3
        ? reply(response, 503, errorBody('service_unavailable', true))
        : reply(response, 200, JSON.stringify(VOICES), { 'x-request-id': 'req-ok' });
    await expect(client().voices.list()).resolves.toEqual(VOICES);
    expect(attempts).toEqual(
      Array(3).fill({ method: 'GET', url: '/v1/voices', authorization: 'Bearer awp_test_key' }),
    );
  });

  it('stops after maxAttempts and throws the typed error of the last answer', async () => {
    handler = (_request, response, attempt) =>
      reply(response, 503, errorBody('service_unavailable', true, `req-${attempt}`));
    const error = await client({ maxAttempts: 2 })
      .voices.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, requestId: 'req-2', retryable: true });
    expect(attempts).toHaveLength(2);
    // A per-call maxAttempts overrides the client's.
    attempts = [];
    await client({ maxAttempts: 5 })
      .voices.list({ maxAttempts: 1 })
      .catch(() => {});
    expect(attempts).toHaveLength(1);
  });

  it('honours Retry-After instead of the backoff', async () => {
    handler = (_request, response, attempt) =>
      attempt === 1
        ? reply(response, 429, errorBody('rate_limited', true), { 'retry-after': '1' })
        : reply(response, 200, JSON.stringify(VOICES));
    const sdk = client({ retry: { initialDelayMs: HOUR_MS, maxDelayMs: HOUR_MS } });
    await expect(sdk.voices.list()).resolves.toEqual(VOICES);
    expect(attempts).toHaveLength(2);
  });

  it('throws at once when Retry-After is longer than maxRetryAfterMs', async () => {
    handler = (_request, response) =>
      reply(response, 429, errorBody('rate_limited', true), { 'retry-after': '120' });
    const error = await client()
      .voices.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(120_000);
    expect(attempts).toHaveLength(1);
  });

  it('never retries an answer the service marks not retryable', async () => {
    handler = (_request, response) => reply(response, 400, errorBody('invalid_request', false));
    await expect(client().voices.list()).rejects.toBeInstanceOf(InvalidRequestError);
    expect(attempts).toHaveLength(1);
  });

  it('lets the error object’s retryable flag decide, whatever the code', async () => {
    handler = (_request, response, attempt) =>
      attempt === 1
        ? reply(response, 502, errorBody('provider_error', true))
        : reply(response, 502, errorBody('provider_error', false));
    const error = await client({ maxAttempts: 5 })
      .tts.synthesize({ text: 'Hi', voice_id: 'voice_x', output_format: 'pcm_24000' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect(attempts.map((a) => a.method)).toEqual(['POST', 'POST']);
  });

  it('maps an unknown code to the base class and a foreign answer by its status', async () => {
    handler = (_request, response) => reply(response, 418, errorBody('teapot', false));
    const unknown = await client()
      .voices.list()
      .catch((e: unknown) => e);
    expect((unknown as AwpError).constructor).toBe(AwpError);
    expect(unknown).toMatchObject({ code: 'teapot', status: 418, retryable: false });

    attempts = [];
    handler = (_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<html>bad gateway</html>');
    };
    const foreign = await client({ maxAttempts: 2 })
      .voices.list()
      .catch((e: unknown) => e);
    expect(foreign).toBeInstanceOf(AwpInvalidResponseError);
    expect(foreign).toMatchObject({ status: 502, retryable: true });
    expect(attempts).toHaveLength(2);
  });

  it('retries network failures of idempotent calls only', async () => {
    handler = (request) => request.socket.destroy();
    await expect(client().voices.list()).rejects.toBeInstanceOf(AwpConnectionError);
    expect(attempts).toHaveLength(3);

    attempts = [];
    const error = await client()
      .tts.synthesize({ text: 'Hi', voice_id: 'voice_x', output_format: 'pcm_24000' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwpConnectionError);
    expect((error as AwpConnectionError).status).toBeUndefined();
    expect(attempts).toHaveLength(1);
  });

  it('times out each attempt and retries idempotent calls', async () => {
    handler = (_request, response) => hanging.add(response);
    const error = await client({ timeoutMs: 200 })
      .voices.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwpTimeoutError);
    expect((error as AwpTimeoutError).code).toBe('timeout');
    expect(attempts).toHaveLength(3);

    attempts = [];
    const post = await client()
      .tokens.createAgentSessionToken('agent', {}, { timeoutMs: 200, maxAttempts: 2 })
      .catch((e: unknown) => e);
    expect(post).toBeInstanceOf(AwpTimeoutError);
    expect(attempts).toHaveLength(2);
  });

  it('aborts a call waiting for its answer, without retrying', async () => {
    handler = (_request, response) => hanging.add(response);
    const controller = new AbortController();
    const call = client().voices.list({ signal: controller.signal });
    await waitFor(() => attempts.length === 1, { what: 'the request to arrive' });
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(AwpAbortError);
    expect(attempts).toHaveLength(1);
  });

  it('aborts during the wait before a retry', async () => {
    handler = (_request, response) =>
      reply(response, 503, errorBody('service_unavailable', true), { 'retry-after': '30' });
    const controller = new AbortController();
    const call = client().voices.list({ signal: controller.signal });
    await waitFor(() => attempts.length === 1, { what: 'the first attempt' });
    controller.abort();
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwpAbortError);
    expect((error as AwpAbortError).cause).toBeInstanceOf(ServiceUnavailableError);
    expect(attempts).toHaveLength(1);
  });

  it('rejects at once when the signal is already aborted', async () => {
    handler = (_request, response) => reply(response, 200, JSON.stringify(VOICES));
    await expect(client().voices.list({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      AwpAbortError,
    );
    expect(attempts).toHaveLength(0);
  });

  it('retries a refused stream handshake, then streams', async () => {
    const sockets = new WebSocketServer({ noServer: true });
    let upgrades = 0;
    const onUpgrade = (
      request: IncomingMessage,
      socket: import('node:net').Socket,
      head: Buffer,
    ) => {
      upgrades += 1;
      if (upgrades < 3) {
        const body = errorBody('service_unavailable', true);
        socket.end(
          `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 0\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        return;
      }
      sockets.handleUpgrade(request, socket, head, (ws) => {
        ws.on('message', (data) => {
          const event = JSON.parse(data.toString()) as { event: string };
          if (event.event !== 'stop') return;
          const base = { request_id: 'req-ws' };
          ws.send(
            JSON.stringify({ ...base, event: 'audio', seq: 1, audio: 'AAAA', format: 'pcm_24000' }),
          );
          ws.send(
            JSON.stringify({
              ...base,
              event: 'usage',
              usage: { chars: 2, audio_ms: 1 },
              voice_id: 'v',
            }),
          );
          ws.send(
            JSON.stringify({
              ...base,
              event: 'finish',
              reason: 'stop',
              audit_id: 'aud_1',
              audio_persisted: false,
              cost: { amount: 0, currency: 'USD', pass_through: false },
            }),
          );
          ws.close(1000);
        });
      });
    };
    server.on('upgrade', onUpgrade);
    try {
      const stream = client().tts.stream({ voice_id: 'v', output_format: 'pcm_24000', text: 'Hi' });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(upgrades).toBe(3);
      expect(chunks.map((c) => [c.seq, c.audio.byteLength])).toEqual([[1, 3]]);
      expect(await stream.result).toMatchObject({
        requestId: 'req-ws',
        auditId: 'aud_1',
        chunks: 1,
      });
    } finally {
      server.off('upgrade', onUpgrade);
      sockets.close();
    }
  });
});
