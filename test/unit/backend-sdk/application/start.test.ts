// startApplicationSession's HTTP exchange, against a local server that answers as the api's
// start route documents (docs/application-protocol.md, "Starting"): what is sent, how the
// answer is read, and how failures become typed errors. The route itself is exercised by
// the api's own integration tests and the end-to-end tests with the real worker.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApplicationError,
  startApplicationSession,
} from '../../../../backend-sdk/src/application/index.ts';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: unknown;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let reply: (res: import('node:http').ServerResponse) => void = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const input = {
  agentId: randomUUID(),
  chatSessionId: randomUUID(),
  requestId: randomUUID(),
  application: {
    instructions: 'You are the booking desk.',
    tools: [
      { name: 'book', description: 'Books', parameters: { type: 'object' }, runReply: false },
    ],
  },
};

const started = {
  control: {
    livekit_url: 'ws://127.0.0.1:7880',
    room: 'awp-1',
    token: 'control-jwt',
    identity: 'app-backend-1',
    expires_at: '2030-01-01T00:05:00.000Z',
  },
  session: {
    session_id: '1',
    agent_id: input.agentId,
    livekit: { url: 'ws://127.0.0.1:7880', token: 'user-jwt' },
    room: 'awp-1',
    expires_at: '2030-01-01T00:15:00.000Z',
  },
};

describe('startApplicationSession', () => {
  it('posts the start with the workspace key and returns control and session', async () => {
    reply = (res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify(started));
    };
    const result = await startApplicationSession({ baseUrl, apiKey: 'awp_test_key' }, input);
    expect(result).toEqual(started);
    const request = seen.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`/v1/agents/${input.agentId}/application-sessions`);
    expect(request?.headers.authorization).toBe('Bearer awp_test_key');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual(input);
  });

  it('throws the api error with code, status, request id and retryable', async () => {
    reply = (res) => {
      res.writeHead(409, { 'content-type': 'application/json', 'x-request-id': 'hdr' });
      res.end(
        JSON.stringify({
          request_id: 'req-1',
          code: 'agent_not_published',
          retryable: false,
          detail: 'publish the Agent first',
        }),
      );
    };
    const error = await startApplicationSession({ baseUrl, apiKey: 'awp_k' }, input).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApplicationError);
    expect(error).toMatchObject({
      code: 'agent_not_published',
      status: 409,
      requestId: 'req-1',
      retryable: false,
      message: 'publish the Agent first',
    });
  });

  it('calls an answer without the documented shape invalid_response', async () => {
    reply = (res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ session: started.session }));
    };
    await expect(
      startApplicationSession({ baseUrl, apiKey: 'awp_k' }, input),
    ).rejects.toMatchObject({
      code: 'invalid_response',
      status: 201,
    });
    reply = (res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    };
    await expect(
      startApplicationSession({ baseUrl, apiKey: 'awp_k' }, input),
    ).rejects.toMatchObject({
      code: 'invalid_response',
      status: 502,
      retryable: true,
    });
  });

  it('times out, aborts and reports an unreachable api as typed errors', async () => {
    reply = () => {}; // never answers
    await expect(
      startApplicationSession({ baseUrl, apiKey: 'awp_k', timeoutMs: 200 }, input),
    ).rejects.toMatchObject({ code: 'timeout', retryable: true });
    const controller = new AbortController();
    const pending = startApplicationSession(
      { baseUrl, apiKey: 'awp_k', signal: controller.signal },
      input,
    );
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    await expect(
      startApplicationSession({ baseUrl: 'http://127.0.0.1:1', apiKey: 'awp_k' }, input),
    ).rejects.toMatchObject({ code: 'connection_error', retryable: true });
  });
});
