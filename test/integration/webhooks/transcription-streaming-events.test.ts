// Realtime transcription sessions and streaming sessions send webhook events like live
// sessions do, on both databases: a receiver registered through the API gets
// `*.started` and `*.ended` for each kind, signed as every event is, and the server
// library's verifyWebhook accepts them; each carries the session as GET answers it.
import {
  AwpClient,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventType,
} from '../../../backend-sdk/src/index.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { WEBHOOK_EVENT_SCHEMAS } from '../../../src/webhooks/event-schemas.ts';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../../fakes/openai-transcriptions.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { openTranscription, sendAudio, silence, speech } from '../../helpers/transcription.ts';
import { budget, waitFor } from '../../helpers/wait.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

const SESSION_EVENTS: WebhookEventType[] = [
  'transcription_session.started',
  'transcription_session.ended',
  'streaming_session.started',
  'streaming_session.ended',
];

describeEachDialect('transcription and streaming session webhooks on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let fake: FakeTranscriptions;
  let ws: SeededWorkspace;
  let receiver: WebhookReceiver;
  let client: AwpClient;
  let secret: string;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await startFakeTranscriptions({ apiKey: 'sk-test' });
      receiver = await startWebhookReceiver();
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle, { capabilities: ['tts', 'transcription'], credits: 1000 });
      server = await apis.start(database, {
        env: {
          STT_PROVIDER: 'openai',
          STT_OPENAI_BASE_URL: fake.url,
          STT_OPENAI_API_KEY: 'sk-test',
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_POLL_INTERVAL_MS: '100',
        },
      });
      client = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url, maxAttempts: 1 });
      const endpoint = await client.webhooks.create({
        url: receiver.url('/awp/webhooks'),
        events: SESSION_EVENTS,
      });
      expect(endpoint.events).toEqual(SESSION_EVENTS);
      secret = endpoint.secret;
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await fake?.close();
    await receiver?.close();
  });

  /** Every event received so far, each verified with the endpoint's secret. */
  const received = (): WebhookEvent[] =>
    receiver.hits.map((hit) => verifyWebhook(hit.body, hit.headers, secret));
  /** The one event of `type` about `sessionId`, once it arrived, checked against its schema. */
  const eventOf = async (type: WebhookEventType, sessionId: string) => {
    const event = await waitFor(
      () => {
        const found = received().filter(
          (event) =>
            event.type === type &&
            ((event.data as { session_id?: string }).session_id === sessionId ||
              (event.data as { id?: string }).id === sessionId),
        );
        expect(found.length).toBeLessThanOrEqual(1);
        return found[0];
      },
      { what: `${type} for ${sessionId}` },
    );
    expect(WEBHOOK_EVENT_SCHEMAS[type].schema.safeParse(event).success).toBe(true);
    return event;
  };

  it('sends streaming_session.started and .ended with the session as GET answers it', async () => {
    const created = await client.streamingSessions.create({ metadata: { screen: 'checkout' } });
    const started = await eventOf('streaming_session.started', created.id);
    expect(started).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'streaming_session.started',
      timestamp: created.created_at,
      data: created,
    });

    const ended = await client.streamingSessions.update(created.id, { status: 'ended' });
    const endedEvent = await eventOf('streaming_session.ended', created.id);
    expect(endedEvent).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'streaming_session.ended',
      timestamp: ended.ended_at,
      data: await client.streamingSessions.get(created.id),
    });
    expect(endedEvent.data).toMatchObject({ status: 'ended', metadata: { screen: 'checkout' } });
    expect(endedEvent.id).not.toBe(started.id);

    // Ending again changes nothing and sends nothing more.
    await client.streamingSessions.update(created.id, { status: 'ended' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      received().filter(
        (event) =>
          event.type === 'streaming_session.ended' &&
          (event.data as { id: string }).id === created.id,
      ),
    ).toHaveLength(1);
  });

  it('sends transcription_session.started and .ended with the session as GET answers it', async () => {
    fake.say('hello webhooks');
    const socket = await openTranscription(server.url, ws.productionKey);
    socket.send({ event: 'start', audio_format: 'pcm_16000', partner_session_id: 'hooked' });
    sendAudio(socket, await speech('Hello webhooks.', 16_000), 16_000);
    sendAudio(socket, silence(1_500, 16_000), 16_000);
    socket.send({ event: 'stop' });
    await socket.closed;
    expect(socket.events.at(-1)).toMatchObject({ event: 'finish' });
    const sessionId = socket.events[0]?.session_id as string;
    const read = await client.transcription.sessions.get(sessionId);
    expect(read.status).toBe('ended');
    expect(read.audio_ms).toBeGreaterThan(1_000);

    const started = await eventOf('transcription_session.started', sessionId);
    expect(started).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'transcription_session.started',
      timestamp: read.started_at,
      data: {
        ...read,
        status: 'active',
        audio_ms: 0,
        cost: null,
        ended_at: null,
        transcript: '',
        segments: [],
      },
    });
    const ended = await eventOf('transcription_session.ended', sessionId);
    expect(ended).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'transcription_session.ended',
      timestamp: read.ended_at,
      data: read,
    });
  });

  it('records one delivered delivery per event under its type', async () => {
    const expected = [...SESSION_EVENTS]
      .sort()
      .map((event_type) => ({ event_type, state: 'delivered' }));
    await waitFor(
      async () => {
        const rows = await handle.db
          .selectFrom('webhook_deliveries')
          .select(['event_type', 'state'])
          .where('workspace_id', '=', ws.workspaceId)
          .orderBy('event_type')
          .execute();
        expect(rows).toEqual(expected);
        return true;
      },
      { what: 'every delivery to be recorded delivered' },
    );
  });
});
