// Agent sessions write their webhook events with the change they report: one
// `agent_session.started` when a worker takes the session and one `agent_session.ended`
// with the report and transcript when it ends, for each enabled endpoint of the session's
// workspace and environment that subscribes, on both databases.

import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { sessionReportBody } from '../../../src/agent-sessions/session-report-view.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { SecretBox } from '../../../src/secrets/secret-box.ts';
import { WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { WEBHOOK_EVENT_SCHEMAS } from '../../../src/webhooks/event-schemas.ts';
import { emitTestEvent } from '../../../src/webhooks/outbox.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

const RECEIVER = 'https://hooks.example.com/awp';

describeEachDialect('live session webhook events on %s', (dialect) => {
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ handle } = await databases.get(dialect));
  });

  const deliveries = (endpointId: string) =>
    handle.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('created_at')
      .orderBy('event_type', 'desc')
      .execute();

  async function setUp() {
    const ws = await seedWorkspace(handle);
    const other = await seedWorkspace(handle);
    const endpoints = new WebhookEndpoints(handle.db, new SecretBox('k'.repeat(32)));
    const production = { workspaceId: ws.workspaceId, environment: 'production' as const };
    const both = ['agent_session.started', 'agent_session.ended'];
    const all = (await endpoints.create(production, { url: RECEIVER, events: both })).endpoint;
    const endedOnly = (
      await endpoints.create(production, { url: RECEIVER, events: ['agent_session.ended'] })
    ).endpoint;
    const disabled = (
      await endpoints.create(production, { url: RECEIVER, events: both, enabled: false })
    ).endpoint;
    const development = (
      await endpoints.create(
        { workspaceId: ws.workspaceId, environment: 'development' },
        { url: RECEIVER, events: both },
      )
    ).endpoint;
    const foreign = (
      await endpoints.create(
        { workspaceId: other.workspaceId, environment: 'production' },
        { url: RECEIVER, events: both },
      )
    ).endpoint;
    const snapshot = await publishedAgentSnapshot(
      handle.db,
      ws.workspaceId,
      `hooked-${ws.workspaceId}`,
    );
    const sessions = new AgentSessions(handle.db, { heartbeatTimeoutMs: 60_000 });
    const open = async (endUserId?: string) => {
      const id = uuidv7();
      await sessions.create({
        id,
        snapshot,
        apiKeyId: ws.productionKeyId,
        endUserId,
        room: `agent-session-${id}`,
        overrides: undefined,
        sessionContext: undefined,
        expiresAt: new Date(Date.now() + 60_000),
      });
      return id;
    };
    return {
      ws,
      production,
      all,
      endedOnly,
      disabled,
      development,
      foreign,
      snapshot,
      sessions,
      open,
    };
  }

  it('records started and ended once each, with the report and the whole transcript', async () => {
    const t = await setUp();
    const endUserId = randomUUID();
    const id = await t.open(endUserId);

    expect(await t.sessions.markActive(id)).toBe(true);
    const [started, ...noMore] = await deliveries(t.all.id);
    expect(noMore).toEqual([]);
    const row = await handle.db
      .selectFrom('agent_sessions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(started).toMatchObject({
      event_type: 'agent_session.started',
      state: 'pending',
      attempts: 0,
    });
    expect(JSON.parse(started!.payload)).toEqual({
      id: started!.event_id,
      type: 'agent_session.started',
      timestamp: row.started_at,
      data: {
        session_id: id,
        agent_id: t.snapshot.agentId,
        kind: 'managed',
        end_user_id: endUserId,
        chat_session_id: null,
        created_at: row.created_at,
        started_at: row.started_at,
      },
    });
    expect(started!.event_id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(await deliveries(t.endedOnly.id)).toEqual([]);

    await t.sessions.addTurn({
      id: uuidv7(),
      sessionId: id,
      role: 'user',
      text: 'Hello there.',
      interrupted: false,
    });
    await t.sessions.addTurn({
      id: uuidv7(),
      sessionId: id,
      role: 'agent',
      text: 'Hi! How can I',
      interrupted: true,
    });
    await t.sessions.addUsage(id, { llmInputTokens: 120, llmOutputTokens: 14, sttMs: 1_500 });
    expect(
      await t.sessions.end(id, 'ended', 'user_left', { sessionMs: 61_000, millicredits: 2_500 }),
    ).toBe(true);
    // Ending again, or taking an ended session, writes nothing more.
    expect(await t.sessions.end(id, 'failed', 'worker_lost')).toBe(false);
    expect(await t.sessions.markActive(id)).toBe(false);

    const [, ended, ...after] = await deliveries(t.all.id);
    expect(after).toEqual([]);
    const [endedToOther, ...afterOther] = await deliveries(t.endedOnly.id);
    expect(afterOther).toEqual([]);
    // One event: the same id and the same bytes for every endpoint.
    expect(endedToOther!.event_id).toBe(ended!.event_id);
    expect(endedToOther!.payload).toBe(ended!.payload);
    expect(ended!.event_id).not.toBe(started!.event_id);

    const body = JSON.parse(ended!.payload);
    const turns = await handle.db
      .selectFrom('agent_session_messages')
      .select(['id', 'created_at'])
      .where('session_id', '=', id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const endedRow = await handle.db
      .selectFrom('agent_sessions')
      .select(['ended_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(body).toMatchObject({
      id: ended!.event_id,
      type: 'agent_session.ended',
      timestamp: endedRow.ended_at,
      data: {
        session_id: id,
        agent_id: t.snapshot.agentId,
        kind: 'managed',
        state: 'ended',
        end_reason: 'user_left',
        ended_at: endedRow.ended_at,
        transcript_count: 2,
        usage: {
          charge: { credits: 2.5, amount: 0.0025, currency: 'USD' },
          session_seconds: 61,
          llm_input_tokens: 120,
          llm_output_tokens: 14,
          tts_characters: 0,
          stt_seconds: 1.5,
          web_searches: 0,
        },
        latency: null,
        recording: null,
        end_user_id: endUserId,
        chat_session_id: null,
        transcript: [
          {
            id: turns[0]!.id,
            role: 'user',
            text: 'Hello there.',
            interrupted: false,
            created_at: turns[0]!.created_at,
          },
          {
            id: turns[1]!.id,
            role: 'agent',
            text: 'Hi! How can I',
            interrupted: true,
            created_at: turns[1]!.created_at,
          },
        ],
      },
    });
    // Both bodies are exactly what the OpenAPI document's `webhooks` describe.
    expect(
      WEBHOOK_EVENT_SCHEMAS['agent_session.started'].schema.parse(JSON.parse(started!.payload)),
    ).toEqual(JSON.parse(started!.payload));
    expect(WEBHOOK_EVENT_SCHEMAS['agent_session.ended'].schema.parse(body)).toEqual(body);
    // The report in the event is the one `GET /v1/agent-sessions/{id}` answers.
    const report = await t.sessions.report(t.production, id);
    const { end_user_id: _u, chat_session_id: _c, transcript: _t, ...reported } = body.data;
    expect(reported).toEqual(sessionReportBody(report!));

    // A disabled endpoint, the other environment's and another workspace's get nothing.
    expect(await deliveries(t.disabled.id)).toEqual([]);
    expect(await deliveries(t.development.id)).toEqual([]);
    expect(await deliveries(t.foreign.id)).toEqual([]);
  });

  it('reports a session that failed before any worker took it as ended, never started', async () => {
    const t = await setUp();
    const id = await t.open();
    expect(await t.sessions.end(id, 'failed', 'livekit_unavailable')).toBe(true);
    const rows = await deliveries(t.all.id);
    expect(rows.map((r) => r.event_type)).toEqual(['agent_session.ended']);
    const body = JSON.parse(rows[0]!.payload);
    expect(WEBHOOK_EVENT_SCHEMAS['agent_session.ended'].schema.parse(body)).toEqual(body);
    expect(body.data).toMatchObject({
      session_id: id,
      state: 'failed',
      end_reason: 'livekit_unavailable',
      started_at: null,
      end_user_id: null,
      transcript_count: 0,
      transcript: [],
      usage: { charge: { credits: 0, amount: 0, currency: 'USD' }, session_seconds: 0 },
    });
  });

  it('writes no event when no endpoint subscribes', async () => {
    const t = await setUp();
    await new WebhookEndpoints(handle.db, new SecretBox('k'.repeat(32))).update(
      t.production,
      t.all.id,
      { enabled: false },
    );
    await new WebhookEndpoints(handle.db, new SecretBox('k'.repeat(32))).remove(
      t.production,
      t.endedOnly.id,
    );
    const id = await t.open();
    expect(await t.sessions.markActive(id)).toBe(true);
    expect(await t.sessions.end(id, 'ended', 'user_left')).toBe(true);
    const count = await handle.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', t.ws.workspaceId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('sends test events in the shape the document describes', async () => {
    const t = await setUp();
    const id = await emitTestEvent(handle.db, t.production, t.disabled.id, new Date());
    const row = await handle.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const body = JSON.parse(row.payload);
    expect(WEBHOOK_EVENT_SCHEMAS['webhook.test'].schema.parse(body)).toEqual(body);
    expect(body.data).toEqual({ webhook_id: t.disabled.id, environment: 'production' });
    // A strict schema: an extra field is refused, so the check above can fail.
    expect(() =>
      WEBHOOK_EVENT_SCHEMAS['webhook.test'].schema.parse({ ...body, extra: true }),
    ).toThrow();
  });
});
