import { ApiKeys } from '../../../src/auth/api-keys.ts';
import { StreamTokens } from '../../../src/auth/stream-tokens.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { openStream, streamRequest, streamUrl, type UpgradeRefusal } from '../../helpers/stream.ts';
import { budget, sleep } from '../../helpers/wait.ts';

const SECRET = 'stream-token-test-secret-0123456789abcdef';
const START = { voice_id: NATIVE_VOICES[0]!.id, output_format: 'pcm_24000' };

// Several tests synthesize a short stream; on a busy machine that takes seconds.
vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

async function refusal(promise: Promise<unknown>): Promise<UpgradeRefusal> {
  try {
    await promise;
  } catch (error) {
    if ((error as UpgradeRefusal).status) return error as UpgradeRefusal;
    throw error;
  }
  throw new Error('the handshake was accepted');
}

describeEachDialect('streaming credentials on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, {
        env: {
          TOKEN_SIGNING_SECRET: SECRET,
          STREAM_ALLOWED_ORIGINS:
            'https://app.example.com,https://*.customer.test,http://localhost',
        },
      });
    },
    budget({ servers: 1 }),
  );

  const mint = async (key = ws.productionKey, base = server.url) => {
    const response = await fetch(`${base}/v1/tts/stream-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('mints a 2-minute stream token with its URL and capabilities', async () => {
    const before = Date.now();
    const { status, body } = await mint();
    const after = Date.now();
    expect(status).toBe(200);
    expect(body).toEqual({
      token: expect.any(String),
      expires_at: expect.any(String),
      // From configuration (nothing set: the local listener), never from the Host header.
      websocket_url: `ws://localhost:${new URL(server.url).port}/v1/tts/stream`,
      capabilities: { tts_stream: true, tts_one_shot: false, environment: 'production' },
    });
    const expires = Date.parse(body.expires_at as string);
    // Two minutes from the moment the server minted it (between `before` and `after`),
    // rounded down to whole seconds.
    expect(expires - before).toBeGreaterThan(118_000);
    expect(expires - after).toBeLessThanOrEqual(120_000);
    expect(body.token as string).not.toContain(ws.productionKey);
  });

  it('accepts an empty JSON object as the mint body and refuses unknown fields', async () => {
    const post = (body: string) =>
      fetch(`${server.url}/v1/tts/stream-tokens`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ws.productionKey}`,
          'content-type': 'application/json',
        },
        body,
      });
    expect((await post('{}')).status).toBe(200);
    const refused = await post('{"ttl": 3600}');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'invalid_request' });
  });

  it('streams with a token in the query or as a bearer header', async () => {
    const { body } = await mint();
    const viaQuery = await openStream(streamUrl(server.url, body.token as string));
    expect((await streamRequest(viaQuery, START, ['Query token.'])).events.at(-1)!.event).toBe(
      'finish',
    );
    const viaHeader = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${body.token}`,
    });
    expect((await streamRequest(viaHeader, START, ['Header token.'])).events.at(-1)!.event).toBe(
      'finish',
    );
  });

  it('refuses a stream token on every REST route', async () => {
    const { body } = await mint();
    const headers = { authorization: `Bearer ${body.token}`, 'content-type': 'application/json' };
    const voices = await fetch(`${server.url}/v1/voices`, { headers });
    expect(voices.status).toBe(401);
    const tts = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...START, text: 'hi' }),
    });
    expect(tts.status).toBe(401);
    const again = await fetch(`${server.url}/v1/tts/stream-tokens`, { method: 'POST', headers });
    expect(again.status).toBe(401);
  });

  it.each([
    ['no credential', {}, undefined],
    ['a malformed Authorization header', { authorization: 'Token abc' }, undefined],
    ['a bearer that is neither a key nor a token', { authorization: 'Bearer hello' }, undefined],
    ['an unknown awp_ key', { authorization: `Bearer awp_${'x'.repeat(40)}` }, undefined],
    ['a forged token', {}, 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'],
    ['a random token parameter', {}, 'not-a-token'],
  ])('fails the handshake with 401 for %s', async (_name, headers, token) => {
    const refused = await refusal(openStream(streamUrl(server.url, token), headers));
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ event: 'error', code: 'unauthorized', retryable: false });
  });

  it('refuses a permanent key passed as the token parameter', async () => {
    const refused = await refusal(openStream(streamUrl(server.url, ws.productionKey)));
    expect(refused.status).toBe(401);
  });

  it('refuses a development key and a development token on the production listener', async () => {
    expect(
      (
        await refusal(
          openStream(streamUrl(server.url), { authorization: `Bearer ${ws.developmentKey}` }),
        )
      ).status,
    ).toBe(401);
    const { status, body } = await mint(ws.developmentKey, server.devUrl);
    expect(status).toBe(200);
    expect(body.capabilities).toMatchObject({ environment: 'development' });
    expect((await refusal(openStream(streamUrl(server.url, body.token as string)))).status).toBe(
      401,
    );
    const onDev = await openStream(streamUrl(server.devUrl, body.token as string));
    expect((await streamRequest(onDev, START, ['Development.'])).events.at(-1)!.event).toBe(
      'finish',
    );
  });

  it('refuses an expired token', async () => {
    const tokens = new StreamTokens(SECRET);
    const expired = await tokens.mint(
      { keyId: ws.productionKeyId, workspaceId: ws.workspaceId, environment: 'production' },
      Date.now() - 121_000,
    );
    const fresh = await tokens.mint(
      { keyId: ws.productionKeyId, workspaceId: ws.workspaceId, environment: 'production' },
      Date.now() - 100_000,
    );
    expect((await refusal(openStream(streamUrl(server.url, expired.token)))).status).toBe(401);
    const client = await openStream(streamUrl(server.url, fresh.token));
    expect((await streamRequest(client, START, ['Still valid.'])).events.at(-1)!.event).toBe(
      'finish',
    );
  });

  it('refuses tokens of a revoked key within one second, and a revoked key itself', async () => {
    const other = await seedWorkspace(handle);
    const { body } = await mint(other.productionKey);
    await new ApiKeys(handle.db).revoke(other.workspaceId, other.productionKeyId);
    // "Within one second" is the bound under test (key lookups are cached up to 1 s).
    await sleep(1000);
    const refused = await refusal(openStream(streamUrl(server.url, body.token as string)));
    expect(refused.status).toBe(401);
    const key = await refusal(
      openStream(streamUrl(server.url), { authorization: `Bearer ${other.productionKey}` }),
    );
    expect(key.status).toBe(401);
  });

  it('answers account checks at the handshake with their own status', async () => {
    const suspended = await seedWorkspace(handle, { suspended: true });
    const refusedSuspended = await refusal(
      openStream(streamUrl(server.url), { authorization: `Bearer ${suspended.productionKey}` }),
    );
    expect(refusedSuspended).toMatchObject({
      status: 403,
      body: { code: 'organization_suspended' },
    });
    const noTts = await seedWorkspace(handle, { capabilities: ['agents'] });
    const refusedCapability = await refusal(
      openStream(streamUrl(server.url), { authorization: `Bearer ${noTts.productionKey}` }),
    );
    expect(refusedCapability).toMatchObject({ status: 403, body: { code: 'capability_disabled' } });
  });

  it('checks the Origin of token connections against the allowlist', async () => {
    const { body } = await mint();
    const token = body.token as string;
    for (const origin of [
      'https://app.example.com',
      'https://shop.customer.test',
      'http://localhost:5173',
    ]) {
      const client = await openStream(streamUrl(server.url, token), { origin });
      client.socket.close();
      await client.closed;
    }
    for (const origin of [
      'https://evil.example',
      'http://app.example.com',
      'https://customer.test',
      'null',
    ]) {
      const refused = await refusal(openStream(streamUrl(server.url, token), { origin }));
      expect(refused).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    }
    // A workspace key is a server credential: the Origin allowlist does not apply to it.
    const server2server = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
      origin: 'https://evil.example',
    });
    server2server.socket.close();
    await server2server.closed;
  });

  it('never logs a key or a token', async () => {
    const { body } = await mint();
    const client = await openStream(streamUrl(server.url, body.token as string));
    await streamRequest(client, START, ['Logged safely.']);
    const output = server.output();
    expect(output).not.toContain(ws.productionKey);
    expect(output).not.toContain(body.token as string);
  });
});
