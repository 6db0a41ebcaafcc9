// `/v1/streaming-sessions` over the real api: a client's playback session, the usage of the
// speech requests sent with its partner_session_id (exactly what the ledger charged), and
// the playback events it reports, in order and paged.
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NO_USAGE = {
  requests: 0,
  succeeded: 0,
  failed: 0,
  cancelled: 0,
  running: 0,
  chars: 0,
  audio_ms: 0,
  credits: 0,
};

describeEachDialect('streaming sessions on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;

  const speak = async (client: ApiClient, partner: string, text: string) => {
    const reply = await client('POST', '/v1/tts', {
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      text,
      partner_session_id: partner,
    });
    expect(reply.status).toBe(200);
    return reply.headers.get('x-request-id') ?? '';
  };

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    server = await apis.start(database, { env: { AUDIO_PERSISTENCE: 'false' } });
    api = apiClient(server.url, ws.productionKey);
  });

  it('opens a session and reports the usage of its speech requests exactly', async () => {
    const opened = await api('POST', '/v1/streaming-sessions');
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    expect(opened.body).toEqual({
      id: expect.stringMatching(UUID),
      partner_session_id: opened.body.id,
      status: 'active',
      metadata: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
      ended_at: null,
      usage: NO_USAGE,
      events: { count: 0, by_type: {} },
    });
    const partner = 'checkout-screen-42';
    const named = await api('POST', '/v1/streaming-sessions', {
      partner_session_id: partner,
      metadata: { app: 'ios', version: '3.1' },
    });
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ partner_session_id: partner, metadata: { app: 'ios' } });
    const taken = await api('POST', '/v1/streaming-sessions', { partner_session_id: partner });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('conflict');

    const ids = [
      await speak(api, partner, 'Your order is ready.'),
      await speak(api, partner, 'Bye!'),
    ];
    // Neither another partner id nor the other environment counts.
    await speak(api, 'someone-else', 'Not mine.');
    await speak(apiClient(server.devUrl, ws.developmentKey), partner, 'Other environment.');
    const rows = await handle.db
      .selectFrom('synthesis_requests')
      .select(['chars_synthesized', 'encoded_duration_ms', 'cost_millicredits'])
      .where('request_id', 'in', ids)
      .execute();
    const sum = (pick: (r: (typeof rows)[number]) => unknown) =>
      rows.reduce((total, r) => total + Number(pick(r)), 0);
    const read = await api('GET', `/v1/streaming-sessions/${named.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.usage).toEqual({
      requests: 2,
      succeeded: 2,
      failed: 0,
      cancelled: 0,
      running: 0,
      chars: 'Your order is ready.'.length + 'Bye!'.length,
      audio_ms: sum((r) => r.encoded_duration_ms),
      credits: sum((r) => r.cost_millicredits) / 1000,
    });
    expect(sum((r) => r.chars_synthesized)).toBe(24);
  });

  it('keeps events in the order received, numbered, paged and filtered', async () => {
    const session = (await api('POST', '/v1/streaming-sessions', {})).body;
    const path = `/v1/streaming-sessions/${session.id}/events`;
    const first = await api('POST', path, {
      events: [
        { type: 'playback_started', occurred_at: '2026-11-28T10:00:00.000+01:00' },
        { type: 'first_audio_played', request_id: 'req-1', data: { latency_ms: 180 } },
        { type: 'underrun', data: { duration_ms: 40 } },
      ],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toEqual({ accepted: 3, first_seq: 1, last_seq: 3 });
    const second = await api('POST', path, {
      events: [{ type: 'underrun', data: { duration_ms: 20 } }, { type: 'playback_finished' }],
    });
    expect(second.body).toEqual({ accepted: 2, first_seq: 4, last_seq: 5 });

    const page1 = await api('GET', `${path}?limit=2`);
    expect(page1.body.events.map((e: { seq: number; type: string }) => [e.seq, e.type])).toEqual([
      [1, 'playback_started'],
      [2, 'first_audio_played'],
    ]);
    expect(page1.body.events[0]).toEqual({
      seq: 1,
      type: 'playback_started',
      occurred_at: '2026-11-28T09:00:00.000Z',
      request_id: null,
      data: null,
      received_at: expect.any(String),
    });
    expect(page1.body.events[1]).toMatchObject({ request_id: 'req-1', data: { latency_ms: 180 } });
    expect(page1.body.next_cursor).toBe('2');
    const page2 = await api('GET', `${path}?limit=2&cursor=2`);
    expect(page2.body.events.map((e: { seq: number }) => e.seq)).toEqual([3, 4]);
    const page3 = await api('GET', `${path}?limit=2&cursor=${page2.body.next_cursor}`);
    expect(page3.body).toMatchObject({ next_cursor: null, events: [{ seq: 5 }] });
    const underruns = await api('GET', `${path}?type=underrun`);
    expect(underruns.body.events.map((e: { data: unknown }) => e.data)).toEqual([
      { duration_ms: 40 },
      { duration_ms: 20 },
    ]);
    const read = await api('GET', `/v1/streaming-sessions/${session.id}`);
    expect(read.body.events).toEqual({
      count: 5,
      by_type: { first_audio_played: 1, playback_finished: 1, playback_started: 1, underrun: 2 },
    });
  });

  it('ends once, takes late events for ten minutes, then refuses them', async () => {
    const session = (await api('POST', '/v1/streaming-sessions', { metadata: { a: 1 } })).body;
    const path = `/v1/streaming-sessions/${session.id}`;
    const patched = await api('PATCH', path, { metadata: { b: 2 } });
    expect(patched.body).toMatchObject({ status: 'active', metadata: { b: 2 }, ended_at: null });
    const ended = await api('PATCH', path, { status: 'ended' });
    expect(ended.status).toBe(200);
    expect(ended.body.status).toBe('ended');
    expect(ended.body.ended_at).toEqual(expect.any(String));
    const again = await api('PATCH', path, { status: 'ended' });
    expect(again.body.ended_at).toBe(ended.body.ended_at);
    const reopened = await api('PATCH', path, { status: 'active' });
    expect(reopened.status).toBe(409);
    expect(reopened.body.code).toBe('conflict');
    const late = await api('POST', `${path}/events`, { events: [{ type: 'playback_finished' }] });
    expect(late.status).toBe(201);
    await handle.db
      .updateTable('streaming_sessions')
      .set({ ended_at: new Date(Date.now() - 11 * 60_000).toISOString() })
      .where('id', '=', session.id)
      .execute();
    const tooLate = await api('POST', `${path}/events`, { events: [{ type: 'x' }] });
    expect(tooLate.status).toBe(409);
    expect(tooLate.body.code).toBe('conflict');
    expect((await api('GET', path)).body.events.count).toBe(1);
  });

  it('lists sessions newest first, by status, page by page', async () => {
    const listed = await api('GET', '/v1/streaming-sessions?limit=2');
    expect(listed.status).toBe(200);
    const all: { id: string; status: string }[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        body: { sessions: { id: string; status: string }[]; next_cursor: string | null };
      } = await api('GET', `/v1/streaming-sessions?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...page.body.sessions);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(all).toHaveLength(4);
    expect(all.map((s) => s.id)).toEqual([...all.map((s) => s.id)].sort().reverse());
    const ended = await api('GET', '/v1/streaming-sessions?status=ended');
    expect(ended.body.sessions.map((s: { status: string }) => s.status)).toEqual(['ended']);
  });

  it('refuses bad input and other scopes with the error object', async () => {
    const session = (await api('POST', '/v1/streaming-sessions', {})).body;
    const path = `/v1/streaming-sessions/${session.id}`;
    const bad: [string, string, unknown][] = [
      ['POST', '/v1/streaming-sessions', { partner_session_id: '' }],
      ['POST', '/v1/streaming-sessions', { metadata: { blob: 'x'.repeat(5000) } }],
      ['POST', '/v1/streaming-sessions', { extra: true }],
      ['PATCH', path, { status: 'paused' }],
      ['POST', `${path}/events`, { events: [] }],
      ['POST', `${path}/events`, { events: [{ type: 'Bad Type' }] }],
      ['POST', `${path}/events`, { events: [{ type: 'x', occurred_at: 'yesterday' }] }],
      ['POST', `${path}/events`, { events: Array.from({ length: 101 }, () => ({ type: 'x' })) }],
      ['GET', `${path}/events?cursor=abc`, undefined],
    ];
    for (const [method, url, body] of bad) {
      const reply = await api(method, url, body);
      expect(reply.status, `${method} ${url}`).toBe(400);
      expect(reply.body).toMatchObject({ event: 'error', code: 'invalid_request' });
    }
    const stranger = apiClient(server.url, (await seedWorkspace(handle)).productionKey);
    const development = apiClient(server.devUrl, ws.developmentKey);
    for (const client of [stranger, development]) {
      for (const [method, url, body] of [
        ['GET', path, undefined],
        ['PATCH', path, { status: 'ended' }],
        ['POST', `${path}/events`, { events: [{ type: 'x' }] }],
        ['GET', `${path}/events`, undefined],
      ] as const) {
        const reply = await client(method, url, body);
        expect(reply.status, `${method} ${url}`).toBe(404);
        expect(reply.body.code).toBe('not_found');
      }
    }
  });
});
