// Session recordings end to end: a real livekit-server, the api and the agent worker record
// a conversation with an Agent that records sessions; the api serves the stereo Ogg Opus
// file to the workspace's key only, and deletes it on request. The workspace's webhook
// receiver hears the session start and end, signed, with the report and transcript.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { AwpClient, verifyWebhook } from '../../../backend-sdk/src/index.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { DEFAULT_TEXT } from '../../fakes/llm-server.ts';
import { realtimeTest } from '../../fixtures/realtime.ts';
import { type ApiClient, apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { decodeWithFfmpeg } from '../../helpers/audio.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { RoomClient, SPEECH_RMS, speech } from '../../helpers/room-client.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const WINDOW_MS = 20;

/** Per 20 ms window of one channel of interleaved 48 kHz samples: is it speech? */
function loudWindows(samples: Int16Array, channels: 1 | 2, channel: 0 | 1): boolean[] {
  const perWindow = (48_000 * WINDOW_MS) / 1000;
  const windows: boolean[] = [];
  const step = perWindow * channels;
  for (let start = 0; start + step <= samples.length; start += step) {
    let sum = 0;
    for (let i = start + channel; i < start + step; i += channels) {
      const value = (samples[i] ?? 0) / 32768;
      sum += value * value;
    }
    windows.push(Math.sqrt(sum / perWindow) > SPEECH_RMS);
  }
  return windows;
}

/** Start and end (ms) of each run of loud windows, runs closer than `gapMs` joined. */
function loudRuns(windows: boolean[], gapMs = 400): { startMs: number; endMs: number }[] {
  const runs: { startMs: number; endMs: number }[] = [];
  windows.forEach((loud, index) => {
    if (!loud) return;
    const atMs = index * WINDOW_MS;
    const last = runs.at(-1);
    if (last && atMs - last.endMs <= gapMs) last.endMs = atMs + WINDOW_MS;
    else runs.push({ startMs: atMs, endMs: atMs + WINDOW_MS });
  });
  return runs;
}

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'sqlite',
  agentName: 'awp-recording-worker-test',
  stt: 'embedded',
  env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' },
});

describe('Session recordings (worker)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let receiver: WebhookReceiver;

  it.beforeAll(async ({ realtimeRig }) => {
    ({ database, handle, server, ws, api } = realtimeRig);
    receiver = await startWebhookReceiver();
  }, 120_000);

  it.afterAll(async () => {
    await receiver?.close();
  }, 60_000);

  it('records the user left and the Agent right on one timeline, serves it to the workspace only, and deletes it', async () => {
    const created = await api('POST', '/v1/agents', {
      slug: 'recorded-ada',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      recording_enabled: true,
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Ada', system_prompt: 'Be brief.', first_mes: 'Hello, I am Ada.' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.recording_enabled).toBe(true);
    const agentId = created.body.id as string;
    expect((await api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
    const sdk = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url });
    const hook = await sdk.webhooks.create({
      url: receiver.url('/events'),
      events: ['agent_session.started', 'agent_session.ended'],
    });
    const token = (await api('POST', `/v1/agents/${agentId}/session-tokens`, {})).body
      .token as string;
    const started = await apiClient(server.url, token)('POST', `/v1/agents/${agentId}/sessions`);
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sessionId = started.body.session_id as string;

    const question = await speech('What is the weather like today in Paris?');
    const client = await RoomClient.join(started.body.livekit.url, started.body.livekit.token);
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent'),
        45_000,
        'the greeting',
      );
      // The greeting has played out before the user speaks.
      await client.waitUntil(() => client.loudFramesSince(0) > 20, 20_000, 'greeting audio');
      await client.waitUntil(
        () => {
          const lastLoud = client.agentAudio.findLast((f) => f.rms > SPEECH_RMS)?.atMs ?? 0;
          return performance.now() - lastLoud > 800;
        },
        20_000,
        'the greeting to end',
      );
      await client.say(question);
      await client.waitUntil(
        () => client.transcripts().find((t) => t.text === DEFAULT_TEXT.join('')),
        30_000,
        'the spoken answer',
      );
      await new Promise((resolve) => setTimeout(resolve, 2000));
    } finally {
      await client.leave();
    }

    let report: Record<string, unknown> = {};
    for (let i = 0; i < 80; i++) {
      report = (await api('GET', `/v1/agent-sessions/${sessionId}`)).body;
      if (report.state !== 'active') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(report).toMatchObject({ state: 'ended', end_reason: 'user_left' });
    const recording = report.recording as {
      url: string;
      content_type: string;
      duration_seconds: number;
    };
    expect(recording).toMatchObject({
      url: `/v1/agent-sessions/${sessionId}/recording`,
      content_type: 'audio/ogg',
    });
    const sessionSeconds = (report.usage as { session_seconds: number }).session_seconds;
    expect(recording.duration_seconds).toBeGreaterThan(5);
    expect(recording.duration_seconds).toBeLessThanOrEqual(sessionSeconds);

    const response = await fetch(`${server.url}${recording.url}`, {
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/ogg');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(Number(response.headers.get('x-audio-duration-ms'))).toBe(
      recording.duration_seconds * 1000,
    );
    const served = Buffer.from(await response.arrayBuffer());
    // The server library fetches the same bytes.
    expect(Buffer.from(await sdk.agentSessions.recording(sessionId)).equals(served)).toBe(true);
    const decoded = await decodeWithFfmpeg(served);
    expect(decoded.stderr).toBe('');
    expect(decoded.channels).toBe(2);
    expect(decoded.sampleRateHz).toBe(48_000);
    // Exactly the length the api reports: the file's own (granule position less pre-skip).
    expect(decoded.pcm.byteLength / 4 / 48).toBe(recording.duration_seconds * 1000);

    const stereo = new Int16Array(
      decoded.pcm.buffer,
      decoded.pcm.byteOffset,
      decoded.pcm.byteLength / 2,
    );
    // Left, the user: the words the client's microphone played. The recorder places audio
    // on the timeline as it arrives, so transport jitter may split or shorten it a little
    // (clicks under 60 ms are not speech).
    const length = (run: { startMs: number; endMs: number }) => run.endMs - run.startMs;
    const user = loudRuns(loudWindows(stereo, 2, 0)).filter((run) => length(run) >= 60);
    const played = loudRuns(loudWindows(question, 1, 0));
    const playedMs = played.reduce((sum, run) => sum + length(run), 0);
    const userMs = user.reduce((sum, run) => sum + length(run), 0);
    expect(userMs).toBeGreaterThanOrEqual(playedMs * 0.6);
    expect(userMs).toBeLessThanOrEqual(playedMs * 1.1);
    const said = { startMs: user[0]!.startMs, endMs: user.at(-1)!.endMs };
    expect(length(said)).toBeLessThanOrEqual(played.at(-1)!.endMs - played[0]!.startMs + 1000);
    // Right, the Agent: the greeting before the user spoke, the answer after.
    const agent = loudRuns(loudWindows(stereo, 2, 1));
    expect(agent.filter((run) => run.endMs <= said.startMs).length).toBeGreaterThanOrEqual(1);
    expect(agent.filter((run) => run.startMs >= said.endMs).length).toBeGreaterThanOrEqual(1);
    // Nothing of the Agent while the user spoke, nothing of the user in the Agent's channel.
    expect(agent.some((run) => run.startMs < said.endMs && run.endMs > said.startMs)).toBe(false);

    // The receiver heard the session start and end, the end with the report, recording and
    // transcript, each signed with the endpoint's secret.
    for (let i = 0; i < 100 && receiver.hits.length < 2; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const events = receiver.hits.map((hit) => verifyWebhook(hit.body, hit.headers, hook.secret));
    expect(events.map((event) => event.type).sort()).toEqual([
      'agent_session.ended',
      'agent_session.started',
    ]);
    const startedEvent = events.find((event) => event.type === 'agent_session.started');
    const endedEvent = events.find((event) => event.type === 'agent_session.ended');
    expect(startedEvent?.data).toMatchObject({ session_id: sessionId, agent_id: agentId });
    const turns = await handle.db
      .selectFrom('agent_session_messages')
      .select(['id', 'role', 'text', 'interrupted', 'created_at'])
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(turns.length).toBe(report.transcript_count);
    expect(endedEvent?.data).toEqual({
      ...report,
      end_user_id: null,
      chat_session_id: null,
      transcript: turns.map((turn) => ({ ...turn, interrupted: turn.interrupted === 1 })),
    });
    expect(receiver.hits.map((hit) => hit.headers['webhook-id']).sort()).toEqual(
      events.map((event) => event.id).sort(),
    );

    // Another workspace's key never reaches it.
    const other = await seedWorkspace(handle);
    const foreign = await apiClient(server.url, other.productionKey)('GET', recording.url);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');

    // Deleted on request: the file goes, the session and its transcript stay.
    const file = path.join(
      database.dataDir,
      'audio',
      ws.workspaceId,
      'recordings',
      `${sessionId}.ogg`,
    );
    expect(existsSync(file)).toBe(true);
    await sdk.agentSessions.deleteRecording(sessionId);
    expect(existsSync(file)).toBe(false);
    const gone = await api('GET', recording.url);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ event: 'error', code: 'not_found', retryable: false });
    expect((await api('DELETE', recording.url)).status).toBe(404);
    const after = (await api('GET', `/v1/agent-sessions/${sessionId}`)).body;
    expect(after.recording).toBeNull();
    expect(after.transcript_count).toBe(report.transcript_count);
  }, 240_000);
});
