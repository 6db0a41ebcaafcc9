// Credentials of realtime transcription on both databases: the token route, tokens and keys
// at the WebSocket handshake (401 with no event for a rejected credential), expiry, token
// kinds, the Origin allowlist and account checks.
import { StreamTokens } from '../../../src/auth/stream-tokens.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../../fakes/openai-transcriptions.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import {
  openStream,
  type StreamClient,
  streamUrl,
  type UpgradeRefusal,
} from '../../helpers/stream.ts';
import { transcriptionUrl } from '../../helpers/transcription.ts';
import { budget } from '../../helpers/wait.ts';

const SECRET = 'transcription-token-test-secret-0123456789';

vi.setConfig({ testTimeout: budget({}) });

async function refusal(promise: Promise<unknown>): Promise<UpgradeRefusal> {
  try {
    const client = (await promise) as StreamClient;
    client.socket.close();
  } catch (error) {
    if ((error as UpgradeRefusal).status) return error as UpgradeRefusal;
    throw error;
  }
  throw new Error('the handshake was accepted');
}

/** Sends `start` and waits for `started`: the connection works. */
async function starts(client: StreamClient): Promise<void> {
  client.send({ event: 'start', audio_format: 'pcm_16000' });
  await client.waitFor((e) => e.event === 'started');
  client.socket.close();
  await client.closed;
}

describeEachDialect('realtime transcription credentials on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let fake: FakeTranscriptions;
  let ws: SeededWorkspace;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await startFakeTranscriptions({ apiKey: 'sk-test' });
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle, { capabilities: ['tts', 'transcription'] });
      server = await apis.start(database, {
        env: {
          TOKEN_SIGNING_SECRET: SECRET,
          STT_PROVIDER: 'openai',
          STT_OPENAI_BASE_URL: fake.url,
          STT_OPENAI_API_KEY: 'sk-test',
          STREAM_ALLOWED_ORIGINS: 'https://app.example.com,http://localhost',
          TRANSCRIPTION_MAX_CONCURRENT_PER_WORKSPACE: '2',
        },
      });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await fake?.close();
  });

  const mint = async (key = ws.productionKey, base = server.url, body?: string) => {
    const response = await fetch(`${base}/v1/realtime-transcription-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
    return {
      status: response.status,
      cacheControl: response.headers.get('cache-control'),
      body: (await response.json()) as Record<string, unknown>,
    };
  };

  it('mints a 2-minute token (201, no-store) naming the WebSocket to open', async () => {
    const before = Date.now();
    const minted = await mint();
    expect(minted).toEqual({
      status: 201,
      cacheControl: 'no-store',
      body: {
        token: expect.any(String),
        expires_at: expect.any(String),
        websocket_url: `ws://localhost:${new URL(server.url).port}/v1/realtime-transcription`,
      },
    });
    const expires = Date.parse(minted.body.expires_at as string);
    expect(expires - before).toBeGreaterThan(118_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(120_000);
    expect((await mint(ws.productionKey, server.url, '{}')).status).toBe(201);
    expect((await mint(ws.productionKey, server.url, '{"ttl":600}')).body).toMatchObject({
      code: 'invalid_request',
    });
  });

  it('opens with a token in the query or as a bearer header, and with the workspace key', async () => {
    const { body } = await mint();
    await starts(await openStream(transcriptionUrl(server.url, body.token as string)));
    await starts(
      await openStream(transcriptionUrl(server.url), { authorization: `Bearer ${body.token}` }),
    );
    await starts(
      await openStream(transcriptionUrl(server.url), {
        authorization: `Bearer ${ws.productionKey}`,
      }),
    );
  });

  it.each([
    ['no credential', {}, undefined],
    ['a malformed Authorization header', { authorization: 'Token abc' }, undefined],
    ['an unknown awp_ key', { authorization: `Bearer awp_${'x'.repeat(40)}` }, undefined],
    ['a forged token', {}, 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'],
    ['a random token parameter', {}, 'not-a-token'],
  ])('fails the handshake with 401 and no event for %s', async (_name, headers, token) => {
    const refused = await refusal(openStream(transcriptionUrl(server.url, token), headers));
    expect(refused).toMatchObject({
      status: 401,
      body: { event: 'error', code: 'unauthorized', retryable: false },
    });
  });

  it('refuses the permanent key as a token parameter, and each token kind on the other socket', async () => {
    expect((await refusal(openStream(transcriptionUrl(server.url, ws.productionKey)))).status).toBe(
      401,
    );
    const tts = await fetch(`${server.url}/v1/tts/stream-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    const ttsToken = ((await tts.json()) as { token: string }).token;
    expect((await refusal(openStream(transcriptionUrl(server.url, ttsToken)))).status).toBe(401);
    const { body } = await mint();
    expect((await refusal(openStream(streamUrl(server.url, body.token as string)))).status).toBe(
      401,
    );
  });

  it('refuses an expired token and a token of the other environment', async () => {
    const tokens = new StreamTokens(SECRET);
    const claims = {
      keyId: ws.productionKeyId,
      workspaceId: ws.workspaceId,
      environment: 'production' as const,
    };
    const expired = await tokens.mint(claims, Date.now() - 121_000, 'transcription');
    expect((await refusal(openStream(transcriptionUrl(server.url, expired.token)))).status).toBe(
      401,
    );
    const fresh = await tokens.mint(claims, Date.now() - 100_000, 'transcription');
    await starts(await openStream(transcriptionUrl(server.url, fresh.token)));
    const dev = await mint(ws.developmentKey, server.devUrl);
    expect(dev.body.websocket_url).toBe(
      `ws://localhost:${new URL(server.devUrl).port}/v1/realtime-transcription`,
    );
    const token = dev.body.token as string;
    expect((await refusal(openStream(transcriptionUrl(server.url, token)))).status).toBe(401);
    await starts(await openStream(transcriptionUrl(server.devUrl, token)));
  });

  it('refuses a token on every REST route', async () => {
    const { body } = await mint();
    const headers = { authorization: `Bearer ${body.token}` };
    for (const path of [
      '/v1/realtime-transcription-sessions',
      '/v1/realtime-transcription-tokens',
      '/v1/voices',
    ]) {
      const method = path.endsWith('tokens') ? 'POST' : 'GET';
      expect((await fetch(`${server.url}${path}`, { method, headers })).status).toBe(401);
    }
  });

  it('checks the Origin of token connections, not of key connections', async () => {
    const { body } = await mint();
    const token = body.token as string;
    for (const origin of ['https://app.example.com', 'http://localhost:5173']) {
      await starts(await openStream(transcriptionUrl(server.url, token), { origin }));
    }
    for (const origin of ['https://evil.example', 'null']) {
      const refused = await refusal(openStream(transcriptionUrl(server.url, token), { origin }));
      expect(refused).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    }
    await starts(
      await openStream(transcriptionUrl(server.url), {
        authorization: `Bearer ${ws.productionKey}`,
        origin: 'https://evil.example',
      }),
    );
  });

  it('answers account checks with their own status: capability and suspension', async () => {
    const ttsOnly = await seedWorkspace(handle, { capabilities: ['tts'] });
    const auth = { authorization: `Bearer ${ttsOnly.productionKey}` };
    expect(await refusal(openStream(transcriptionUrl(server.url), auth))).toMatchObject({
      status: 403,
      body: { code: 'capability_disabled' },
    });
    expect((await mint(ttsOnly.productionKey)).status).toBe(403);
    const suspended = await seedWorkspace(handle, {
      capabilities: ['transcription'],
      suspended: true,
    });
    const refused = await refusal(
      openStream(transcriptionUrl(server.url), {
        authorization: `Bearer ${suspended.productionKey}`,
      }),
    );
    expect(refused).toMatchObject({ status: 403, body: { code: 'organization_suspended' } });
  });

  it('refuses a workspace a session beyond its concurrent sessions, retryable', async () => {
    const busy = await seedWorkspace(handle, { capabilities: ['transcription'] });
    const authorization = `Bearer ${busy.productionKey}`;
    const open: StreamClient[] = [];
    for (let i = 0; i < 2; i++) {
      const client = await openStream(transcriptionUrl(server.url), { authorization });
      client.send({ event: 'start', audio_format: 'pcm_16000' });
      await client.waitFor((e) => e.event === 'started');
      open.push(client);
    }
    const third = await openStream(transcriptionUrl(server.url), { authorization });
    third.send({ event: 'start', audio_format: 'pcm_16000' });
    await third.closed;
    expect(third.events).toEqual([
      expect.objectContaining({ event: 'error', code: 'rate_limited', retryable: true }),
    ]);
    for (const client of open) client.socket.close();
    // Each session that ended gave its slot back.
    await vi.waitFor(
      async () => {
        const active = await handle.db
          .selectFrom('transcription_sessions')
          .select('id')
          .where('workspace_id', '=', busy.workspaceId)
          .where('status', '=', 'active')
          .execute();
        expect(active).toEqual([]);
      },
      { timeout: 30_000, interval: 50 },
    );
    await starts(await openStream(transcriptionUrl(server.url), { authorization }));
  });

  it('never logs a key or a token', async () => {
    const { body } = await mint();
    await starts(await openStream(transcriptionUrl(server.url, body.token as string)));
    expect(server.output()).not.toContain(ws.productionKey);
    expect(server.output()).not.toContain(body.token as string);
  });
});
