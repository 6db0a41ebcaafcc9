// The HTTP edge answers every request with the spec's error object: unknown methods
// (405 with Allow, decided before any body is read), unknown paths (404), malformed
// percent-escapes (400).
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with any method name (fetch refuses some, e.g. TRACE). */
function raw(url: string, method: string, body?: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method,
      headers: body ? { 'content-length': body.length } : {},
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the HTTP edge', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(
    async ({ databases, apis }) => {
      database = await databases.empty('sqlite');
      server = await apis.start(database);
    },
    budget({ servers: 1 }),
  );

  it.each(['QUERY', 'PROPFIND', 'TRACE', 'OPTIONS', 'PUT'])(
    'answers %s on an existing path with 405, Allow and the error object',
    async (method) => {
      const response = await raw(`${server.url}/healthz`, method);
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET');
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const body = JSON.parse(response.body) as Record<string, unknown>;
      expect(body).toEqual({
        event: 'error',
        request_id: response.headers['x-request-id'],
        code: 'method_not_allowed',
        retryable: false,
        detail: 'Use GET on this path.',
      });
    },
  );

  it('decides 405 before reading a body, however large', async () => {
    const response = await raw(`${server.url}/v1/tts`, 'TRACE', Buffer.alloc(2 * 1024 * 1024, 1));
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.headers.connection).toBe('close');
    expect(JSON.parse(response.body)).toMatchObject({ code: 'method_not_allowed' });
  });

  it('refuses a bad key from the headers while the body is still arriving', async () => {
    // The client declares 200 KB, sends 1 KB and then nothing: a server that reads the body
    // before authenticating would wait for the rest forever.
    const declared = 200 * 1024;
    const response = await new Promise<RawResponse>((resolve, reject) => {
      const req = httpRequest(`${server.url}/v1/tts`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer awp_not_a_real_key',
          'content-type': 'application/json',
          'content-length': declared,
        },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024, 0x20));
      // Never ended: the response must come regardless.
    });
    expect(response.status).toBe(401);
    expect(response.headers.connection).toBe('close');
    expect(JSON.parse(response.body)).toMatchObject({ code: 'unauthorized' });
  });

  it('answers an unknown path with 404 not_found, whatever the method', async () => {
    for (const method of ['GET', 'QUERY', 'DELETE']) {
      const response = await raw(`${server.url}/v1/no-such-thing`, method);
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'not_found', retryable: false });
    }
  });

  it('answers a malformed percent-escape in a path parameter with 400', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const bad = await raw(`${server.url}/v1/agents/%E0%A4%A`, method);
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body)).toMatchObject({ code: 'invalid_request', retryable: false });
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
