// Realtime transcription session reads on both databases (newest first, cursor paging, the
// scope of a workspace and environment), and a session whose api process died: the next
// life of the process ends it and settles its credit.
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../../fakes/openai-transcriptions.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import {
  expectedMillicredits,
  openTranscription,
  sendAudio,
  silence,
} from '../../helpers/transcription.ts';
import { budget } from '../../helpers/wait.ts';

const PRICE = 6;

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

describeEachDialect('realtime transcription sessions on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let fake: FakeTranscriptions;
  let ws: SeededWorkspace;
  let env: Record<string, string>;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await startFakeTranscriptions({ apiKey: 'sk-test' });
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 1000 });
      env = {
        INSTANCE_ID: `transcription-sessions-${dialect}`,
        STT_PROVIDER: 'openai',
        STT_OPENAI_BASE_URL: fake.url,
        STT_OPENAI_API_KEY: 'sk-test',
        PRICE_STT_CREDITS_PER_MINUTE: String(PRICE),
      };
      server = await apis.start(database, { env });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await server?.stop();
    await fake?.close();
  });

  const get = async (path: string, key = ws.productionKey, base = server.url) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** A session with no audio: start, then stop; resolves with its id. */
  const emptySession = async (key = ws.productionKey, base = server.url) => {
    const client = await openTranscription(base, key);
    client.send({ event: 'start', audio_format: 'pcm_16000', partner_session_id: 'p' });
    client.send({ event: 'stop' });
    await client.closed;
    expect(client.events.at(-1)).toMatchObject({
      event: 'finish',
      cost: { credits: 0, amount: 0 },
    });
    return client.events[0]?.session_id as string;
  };

  it('lists sessions newest first, a page at a time', async () => {
    const owner = await seedWorkspace(handle, { capabilities: ['transcription'] });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await emptySession(owner.productionKey));
    const first = await get('/v1/realtime-transcription-sessions?limit=2', owner.productionKey);
    expect(first.status).toBe(200);
    const page = first.body as { sessions: { session_id: string }[]; next_cursor: string };
    expect(page.sessions.map((s) => s.session_id)).toEqual([ids[2], ids[1]]);
    expect(page.next_cursor).toMatch(new RegExp(`^\\d{4}-.+Z~${ids[1]}$`));
    expect(page.sessions[0]).toEqual({
      session_id: ids[2],
      status: 'ended',
      error_code: null,
      audio_format: 'pcm_16000',
      language: null,
      partner_session_id: 'p',
      audio_ms: 0,
      cost: { credits: 0, amount: 0, currency: 'USD', pass_through: false },
      audit_id: expect.stringMatching(/^aud_/),
      started_at: expect.any(String),
      ended_at: expect.any(String),
    });
    const second = await get(
      `/v1/realtime-transcription-sessions?limit=2&cursor=${page.next_cursor}`,
      owner.productionKey,
    );
    expect(second.body).toEqual({
      sessions: [expect.objectContaining({ session_id: ids[0] })],
      next_cursor: null,
    });
    // A cursor is a position, never another workspace's data; a bare id is not a cursor.
    const foreign = await get(
      `/v1/realtime-transcription-sessions?cursor=${page.next_cursor}`,
      ws.productionKey,
    );
    expect(foreign.body).toMatchObject({ sessions: [], next_cursor: null });
    for (const cursor of [ids[0], '0']) {
      const refused = await get(
        `/v1/realtime-transcription-sessions?cursor=${cursor}`,
        owner.productionKey,
      );
      expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    }
  });

  it('answers 404 for a session of another workspace or environment', async () => {
    const id = await emptySession();
    expect((await get(`/v1/realtime-transcription-sessions/${id}`)).status).toBe(200);
    const other = await seedWorkspace(handle, { capabilities: ['transcription'] });
    expect(
      await get(`/v1/realtime-transcription-sessions/${id}`, other.productionKey),
    ).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const development = await get(
      `/v1/realtime-transcription-sessions/${id}`,
      ws.developmentKey,
      server.devUrl,
    );
    expect(development).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const list = await get('/v1/realtime-transcription-sessions', ws.developmentKey, server.devUrl);
    expect(list.body).toEqual({ sessions: [], next_cursor: null });
    expect((await get('/v1/realtime-transcription-sessions/nope')).status).toBe(404);
  });

  it('ends a session whose process died, charging the audio its reservations recorded', async () => {
    const payer = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 10 });
    const client = await openTranscription(server.url, payer.productionKey);
    client.send({ event: 'start', audio_format: 'pcm_16000', endpointing: 'manual' });
    const started = await client.waitFor((e) => e.event === 'started');
    // 12 s of audio: the second reservation (at 10 s) records the audio received before it.
    sendAudio(client, silence(12_000, 16_000), 16_000, 100);
    const id = started.session_id as string;
    const row = () =>
      handle.db
        .selectFrom('transcription_sessions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    await vi.waitFor(async () => expect(Number((await row()).audio_ms)).toBe(10_000), {
      timeout: 30_000,
      interval: 50,
    });
    await server.kill();
    expect(await row()).toMatchObject({ status: 'active', reserved_millicredits: 2000 });
    // A restart under the same INSTANCE_ID closes what its previous life left open.
    server = await startServer({ database, env });
    await vi.waitFor(async () => expect((await row()).status).toBe('failed'), {
      timeout: 30_000,
      interval: 50,
    });
    const charge = expectedMillicredits(10_000, PRICE);
    expect(await row()).toMatchObject({
      error_code: 'internal_error',
      charged_millicredits: charge,
      reserved_millicredits: 0,
    });
    const balance = await handle.db
      .selectFrom('workspaces')
      .select('credit_balance_millicredits')
      .where('id', '=', payer.workspaceId)
      .executeTakeFirstOrThrow();
    expect(Number(balance.credit_balance_millicredits)).toBe(10_000 - charge);
    expect(
      (await get(`/v1/realtime-transcription-sessions/${id}`, payer.productionKey)).body,
    ).toMatchObject({
      status: 'failed',
      error_code: 'internal_error',
      audio_ms: 10_000,
      cost: { credits: charge / 1000 },
    });
  });
});
