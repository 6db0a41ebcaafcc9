// The server SDK's streaming sessions against the real api: a session, a TTS stream sent
// with its partner_session_id through the same library, reported events and the usage.
import { AwpClient, ConflictError } from '../../../backend-sdk/src/index.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import { NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

describe('server SDK: streaming sessions', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let client: AwpClient;

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get('sqlite'));
    const ws = await seedWorkspace(handle);
    server = await apis.start(database, { env: { AUDIO_PERSISTENCE: 'false' } });
    client = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url });
  });

  it('reports a session, its stream and its events', async () => {
    const session = await client.streamingSessions.create({ metadata: { screen: 'checkout' } });
    await expect(
      client.streamingSessions.create({ partner_session_id: session.partner_session_id }),
    ).rejects.toBeInstanceOf(ConflictError);
    const stream = client.tts.stream({
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      partner_session_id: session.partner_session_id,
      text: 'Hello from the session.',
    });
    let chunks = 0;
    for await (const _chunk of stream) chunks += 1;
    const { requestId } = await stream.result;
    expect(chunks).toBeGreaterThan(0);
    expect(
      await client.streamingSessions.reportEvents(session.id, [
        { type: 'first_audio_played', request_id: requestId, data: { latency_ms: 95 } },
        { type: 'playback_finished', request_id: requestId },
      ]),
    ).toEqual({ accepted: 2, first_seq: 1, last_seq: 2 });
    const ended = await client.streamingSessions.update(session.id, { status: 'ended' });
    expect(ended.usage).toMatchObject({ requests: 1, succeeded: 1, chars: 23 });
    expect(ended.events).toEqual({
      count: 2,
      by_type: { first_audio_played: 1, playback_finished: 1 },
    });
    const { events } = await client.streamingSessions.events(session.id, {
      type: 'first_audio_played',
    });
    expect(events.map((e) => [e.seq, e.request_id, e.data])).toEqual([
      [1, requestId, { latency_ms: 95 }],
    ]);
    const { sessions } = await client.streamingSessions.list({ status: 'ended' });
    expect(sessions.map((s) => s.id)).toEqual([session.id]);
  });
});
