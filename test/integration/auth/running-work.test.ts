// Revoking a key or suspending a workspace ends the work already running on it, on both
// databases: open `/v1/tts/stream` and `/v1/realtime-transcription` sockets end with the
// spec's error event and close, and a signed-in operator of a suspended workspace is
// refused on every operator route. The change is made by another process (the test's own
// database handle, as the operator tool does), so the api learns it from the shared state.
import { ApiKeys } from '../../../src/auth/api-keys.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../../fakes/openai-transcriptions.ts';
import {
  afterAll,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  OPERATOR_PASSWORD,
  signInOperator,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { openStream, type StreamClient, streamUrl } from '../../helpers/stream.ts';
import { openTranscription } from '../../helpers/transcription.ts';
import { budget, sleep, waitFor } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

/** "Within a few seconds": the check interval (1 s) plus the key cache (0.5 s), with room. */
const STOP_WITHIN_MS = 5_000;
const START = { voice_id: NATIVE_VOICES[0]!.id, output_format: 'pcm_24000' };

/** Waits for the server's `error` event and close; returns them with the time taken. */
async function stoppedWith(client: StreamClient, since: number) {
  const error = await client.waitFor((event) => event.event === 'error', STOP_WITHIN_MS + 5_000);
  const closed = await client.closed;
  return { error, closed, elapsedMs: Date.now() - since };
}

/** An open TTS stream with its request started (a ledger row open). */
async function openTtsStream(baseUrl: string, key: string): Promise<StreamClient> {
  const client = await openStream(streamUrl(baseUrl), { authorization: `Bearer ${key}` });
  client.send({ event: 'start', request: START });
  client.send({ event: 'text', text: 'Hello there.' });
  // The start is handled (voice, slot, ledger row) before the key changes.
  await sleep(500);
  return client;
}

/** An open realtime transcription session, `started`. */
async function openStartedTranscription(baseUrl: string, key: string): Promise<StreamClient> {
  const client = await openTranscription(baseUrl, key);
  client.send({ event: 'start', audio_format: 'pcm_16000' });
  await client.waitFor((event) => event.event === 'started');
  return client;
}

describeEachDialect('running work of revoked keys and suspended workspaces on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  /** A second api process of the same deployment (same database and Redis). */
  let peer: RunningServer;
  let fake: FakeTranscriptions;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await startFakeTranscriptions({ apiKey: 'sk-test' });
      ({ database, handle } = await databases.get(dialect));
      const env = {
        STT_PROVIDER: 'openai',
        STT_OPENAI_BASE_URL: fake.url,
        STT_OPENAI_API_KEY: 'sk-test',
        STREAM_IDLE_TIMEOUT_MS: '60000',
        REDIS_PREFIX: `test-running-work-${dialect}-${process.pid}`,
      };
      [server, peer] = await Promise.all([
        apis.start(database, { env }),
        apis.start(database, { env: { ...env, INSTANCE_ID: 'api-peer' } }),
      ]);
    },
    budget({ servers: 2 }),
  );

  afterAll(async () => {
    await fake?.close();
  });

  const workspace = (): Promise<SeededWorkspace> =>
    seedWorkspace(handle, { capabilities: ['tts', 'transcription'] });

  it('ends open synthesis and transcription sockets of a revoked key with unauthorized', async () => {
    const ws = await workspace();
    const tts = await openTtsStream(server.url, ws.productionKey);
    const stt = await openStartedTranscription(server.url, ws.productionKey);
    // Another key of the same workspace keeps working.
    const other = await openTtsStream(server.devUrl, ws.developmentKey);

    const since = Date.now();
    await new ApiKeys(handle.db).revoke(ws.workspaceId, ws.productionKeyId);

    const ttsStop = await stoppedWith(tts, since);
    expect(ttsStop.error).toEqual({
      event: 'error',
      request_id: expect.any(String),
      code: 'unauthorized',
      retryable: false,
      detail: 'The key of this connection was revoked.',
    });
    expect(ttsStop.closed.code).toBe(1000);
    expect(ttsStop.elapsedMs).toBeLessThan(STOP_WITHIN_MS);

    const sttStop = await stoppedWith(stt, since);
    expect(sttStop.error).toMatchObject({
      event: 'error',
      code: 'unauthorized',
      retryable: false,
      detail: 'The key of this connection was revoked.',
    });
    expect(sttStop.closed.code).toBe(1000);
    expect(sttStop.elapsedMs).toBeLessThan(STOP_WITHIN_MS);

    expect(other.events.filter((event) => event.event === 'error')).toEqual([]);
    expect(other.socket.readyState).toBe(other.socket.OPEN);
    other.socket.close();
    await other.closed;

    // The synthesis request is recorded as failed with the code the client saw.
    // (closed once synthesis has stopped, just after the event)
    const row = await waitFor(
      () =>
        handle.db
          .selectFrom('synthesis_requests')
          .select(['status', 'error_code'])
          .where('request_id', '=', ttsStop.error.request_id as string)
          .where('status', '!=', 'started')
          .executeTakeFirst(),
      { what: 'the ledger row to close' },
    );
    expect(row).toEqual({ status: 'failed', error_code: 'unauthorized' });
  });

  it('ends the sockets on another api process when the key is revoked in the dashboard', async () => {
    const ws = await workspace();
    const { client: admin } = await signInOperator(handle, server.url, {
      workspace: ws,
      email: 'admin@revoker.test',
      role: 'admin',
    });
    const tts = await openTtsStream(peer.url, ws.productionKey);

    const since = Date.now();
    const revoked = await admin.request('POST', `/keys/${ws.productionKeyId}/revoke`);
    expect(revoked.status).toBe(200);

    const stop = await stoppedWith(tts, since);
    expect(stop.error).toMatchObject({ event: 'error', code: 'unauthorized', retryable: false });
    expect(stop.closed.code).toBe(1000);
    expect(stop.elapsedMs).toBeLessThan(STOP_WITHIN_MS);
  });

  it('ends them with organization_suspended when the workspace is suspended', async () => {
    const ws = await workspace();
    const tts = await openTtsStream(server.url, ws.productionKey);
    const stt = await openStartedTranscription(server.url, ws.productionKey);

    const since = Date.now();
    await new Workspaces(handle.db).setStatus(ws.workspaceId, 'suspended');

    for (const client of [tts, stt]) {
      const stop = await stoppedWith(client, since);
      expect(stop.error).toMatchObject({
        event: 'error',
        code: 'organization_suspended',
        retryable: false,
        detail: 'The workspace is suspended.',
      });
      expect(stop.closed.code).toBe(1000);
      expect(stop.elapsedMs).toBeLessThan(STOP_WITHIN_MS);
    }
  });

  it('refuses a signed-in operator of a suspended workspace on every operator route', async () => {
    const ws = await workspace();
    const { client: owner } = await signInOperator(handle, server.url, {
      workspace: ws,
      email: 'owner@suspended.test',
    });
    expect((await owner.request('GET', '/me')).status).toBe(200);

    await new Workspaces(handle.db).setStatus(ws.workspaceId, 'suspended');

    for (const [method, path] of [
      ['GET', '/me'],
      ['GET', '/keys'],
      ['POST', '/keys'],
      ['GET', '/voices'],
      ['GET', '/agents'],
    ] as const) {
      const reply = await owner.request(
        method,
        path,
        method === 'POST' ? { label: 'x' } : undefined,
      );
      expect([method, path, reply.status, (reply.body as { code: string }).code]).toEqual([
        method,
        path,
        403,
        'organization_suspended',
      ]);
    }
    // Signing in again is refused the same way (after the password check).
    const again = await new OperatorClient(server.url).signIn(
      'owner@suspended.test',
      OPERATOR_PASSWORD,
    );
    expect([again.status, (again.body as { code: string }).code]).toEqual([
      403,
      'organization_suspended',
    ]);
    const wrong = await new OperatorClient(server.url).signIn('owner@suspended.test', 'wrong-pw');
    expect([wrong.status, (wrong.body as { code: string }).code]).toEqual([401, 'unauthorized']);

    await new Workspaces(handle.db).setStatus(ws.workspaceId, 'active');
    expect((await owner.request('GET', '/me')).status).toBe(200);
  });
});
