// A full worker is not given a job: a real livekit-server, the api and the agent worker. The
// worker is full when its session slots are (WORKER_MAX_SESSIONS) or, with
// WORKER_LOAD_THRESHOLD set, when the machine's CPUs are that busy; LiveKit then gives the
// session's job to no one, and no Agent joins its room. The user types.

import { RoomServiceClient } from 'livekit-server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentIdentity, sessionRoom, userIdentity } from '../../../src/agents/livekit-rooms.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { type RealtimeRig, startRealtimeRig } from '../../helpers/realtime-rig.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import { waitFor } from '../../helpers/wait.ts';
import { freePort, startWorker, type WorkerProcess } from '../../helpers/worker.ts';

/** Longer than a worker with room takes to join a room it was given, so an absence means no job. */
const NO_AGENT_FOR_MS = 10_000;

describe('Worker admission', () => {
  let rig: RealtimeRig;
  let agentId: string;
  let busyWorker: WorkerProcess | undefined;

  const startSession = async () => {
    const minted = await rig.api('POST', `/v1/agents/${agentId}/session-tokens`, {});
    const reply = await apiClient(rig.server.url, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      {},
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as { session_id: string; livekit: { url: string; token: string } };
  };
  const participants = async (sessionId: string) =>
    (
      await new RoomServiceClient(
        rig.livekit.httpUrl,
        rig.livekit.apiKey,
        rig.livekit.apiSecret,
      ).listParticipants(sessionRoom(sessionId))
    ).map((p) => p.identity);
  const fullLogs = (worker: WorkerProcess) =>
    worker.logs().filter((l) => l.msg === 'worker is at full capacity, marking as unavailable');

  beforeAll(async () => {
    rig = await startRealtimeRig({
      dialect: 'sqlite',
      agentName: 'awp-admission-worker-test',
      stt: 'none',
      env: { WORKER_MAX_SESSIONS: '1' },
    });
    const created = await rig.api('POST', '/v1/agents', {
      slug: 'admission',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Ada', system_prompt: 'You are {{char}}.', first_mes: 'Hi.' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await rig.api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await busyWorker?.kill();
    await rig?.close();
  }, 60_000);

  it('gives no job to a worker whose session slots are all taken', async () => {
    const first = await startSession();
    const client = await RoomClient.join(first.livekit.url, first.livekit.token);
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.text === 'Hi.'),
        45_000,
        'the greeting of the first session',
      );
      await waitFor(() => fullLogs(rig.worker).length > 0, {
        what: 'the worker to report itself full',
      });
      expect(fullLogs(rig.worker)[0]).toMatchObject({ load: 1, loadThreshold: 1 });

      const second = await startSession();
      await new Promise((resolve) => setTimeout(resolve, NO_AGENT_FOR_MS));
      expect(await participants(second.session_id)).toEqual([]);
      expect(await participants(first.session_id)).toEqual(
        expect.arrayContaining([agentIdentity(first.session_id), userIdentity(first.session_id)]),
      );
    } finally {
      await client.leave();
    }
  }, 120_000);

  it('gives no job to a worker whose CPU share is at WORKER_LOAD_THRESHOLD', async () => {
    await rig.worker.kill();
    busyWorker = await startWorker({
      ...rig.workerEnv,
      WORKER_HTTP_PORT: String(await freePort()),
      WORKER_MAX_SESSIONS: '4',
      // Any CPU use at all makes this worker full.
      WORKER_LOAD_THRESHOLD: '0.0001',
    });
    const worker = busyWorker;
    await waitFor(() => fullLogs(worker).length > 0, { what: 'the worker to report itself full' });
    const full = fullLogs(worker)[0] as { load: number; loadThreshold: number };
    expect(full.loadThreshold).toBe(0.0001);
    expect(full.load).toBeGreaterThanOrEqual(0.0001);

    const started = await startSession();
    const client = await RoomClient.join(started.livekit.url, started.livekit.token);
    try {
      await new Promise((resolve) => setTimeout(resolve, NO_AGENT_FOR_MS));
      expect(client.transcripts()).toEqual([]);
      expect(await participants(started.session_id)).toEqual([userIdentity(started.session_id)]);
    } finally {
      await client.leave();
    }
  }, 120_000);
});
