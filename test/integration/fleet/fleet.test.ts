// The fleet (test/helpers/fleet.ts): two LiveKit nodes, Redis, PostgreSQL, the S3-compatible
// store, two api processes, a jobs process and two workers of two session slots each.
// Agent sessions started through either api land on both workers, an application session
// runs beside them, a worker whose slots are taken refuses the job LiveKit offers it, and
// with every slot taken a start answers `503 provider_unavailable`. The users type.

import { RoomServiceClient } from 'livekit-server-sdk';
import { describe, expect } from 'vitest';
import { agentIdentity, sessionRoom } from '../../../src/agent-sessions/livekit-rooms.ts';
import { realtimeTest } from '../../fixtures/realtime.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { TestApplicationBackend } from '../../helpers/application-backend.ts';
import type { Fleet } from '../../helpers/fleet.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import { waitFor } from '../../helpers/wait.ts';

// The default: a loaded machine can take a few seconds to accept a job.
const WORKER_WAIT_MS = 7000;
const GREETING = 'Hello Grace, I am Ada.';
const FULL = 'worker is at full capacity, marking as unavailable';
const REFUSED = 'job refused: every session slot is taken';

const it = realtimeTest.override('fleetOptions', {
  agentName: 'awp-fleet-test',
  env: { AGENT_SESSION_WORKER_WAIT_MS: String(WORKER_WAIT_MS) },
  workerEnv: { WORKER_MAX_SESSIONS: '2' },
});

describe('The fleet', () => {
  let fleet: Fleet;
  let agentId: string;
  const clients: RoomClient[] = [];
  let backend: TestApplicationBackend | undefined;

  /** A managed session minted and started through api `i`, its user joined through node `i`. */
  const agentSession = async (i: number) => {
    const minted = await fleet.api(i)('POST', `/v1/agents/${agentId}/session-tokens`, {});
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const started = await apiClient((fleet.apis[i] as { url: string }).url, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      { sessionContext: { userName: 'Grace' } },
    );
    return started;
  };

  const agentIn = async (sessionId: string) => {
    const node = fleet.cluster.nodes[0];
    if (!node) throw new Error('no node');
    const rooms = new RoomServiceClient(
      node.httpUrl,
      fleet.cluster.apiKey,
      fleet.cluster.apiSecret,
    );
    return (await rooms.listParticipants(sessionRoom(sessionId))).some(
      (p) => p.identity === agentIdentity(sessionId),
    );
  };

  /** What a failure needs to be read: each session's record, room and worker log lines. */
  const whereAre = async (ids: string[]) => {
    const node = fleet.cluster.nodes[0];
    if (!node) throw new Error('no node');
    const rooms = new RoomServiceClient(
      node.httpUrl,
      fleet.cluster.apiKey,
      fleet.cluster.apiSecret,
    );
    const report = [];
    for (const id of ids) {
      report.push({
        session: (await fleet.api(0)('GET', `/v1/agent-sessions/${id}`)).body,
        participants: (await rooms.listParticipants(sessionRoom(id))).map((p) => p.identity),
        worker_logs: fleet.workers.map((w) =>
          w.logs().filter((l) => JSON.stringify(l).includes(id)),
        ),
      });
    }
    return JSON.stringify(report, null, 1);
  };

  it.beforeAll(async ({ fleet: started }) => {
    fleet = started;
    const created = await fleet.api(0)('POST', '/v1/agents', {
      slug: 'fleet-ada',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: {
          name: 'Ada',
          system_prompt: 'You are {{char}}.',
          first_mes: 'Hello {{user}}, I am {{char}}.',
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await fleet.api(1)('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 180_000);

  it.afterAll(async () => {
    for (const client of clients) await client.leave().catch(() => {});
    await backend?.leave().catch(() => {});
  }, 60_000);

  it('runs Agent sessions and an application session on both workers, and refuses a start when every slot is taken', async () => {
    // Three Agent sessions, started through both apis; each user hears the greeting.
    const sessions: string[] = [];
    for (const i of [0, 1, 0]) {
      const started = await agentSession(i);
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      sessions.push(started.body.session_id);
      const node = fleet.cluster.nodes[i];
      if (!node) throw new Error('no node');
      const client = await RoomClient.join(node.url, started.body.livekit.token);
      clients.push(client);
      const greeting = await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.final),
        45_000,
        `the greeting of session ${sessions.length}`,
      );
      expect(greeting.text).toBe(GREETING);
    }

    // An application session through api 2 takes the fourth slot; its backend and the agent
    // are in the room and the session runs.
    const app = await fleet.api(1)('POST', `/v1/agents/${agentId}/application-sessions`, {
      agentId,
      chatSessionId: crypto.randomUUID(),
      requestId: crypto.randomUUID(),
      application: { instructions: 'You are the booking desk.' },
    });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const appSession = app.body.session.session_id as string;
    backend = await TestApplicationBackend.join(
      app.body.control.livekit_url,
      app.body.control.token,
    );
    await waitFor(() => agentIn(appSession), { what: 'the agent of the application session' });
    await waitFor(
      async () =>
        (await fleet.api(0)('GET', `/v1/agent-sessions/${appSession}`)).body.state === 'active',
      { what: 'the application session to run' },
    );

    // Both workers took two jobs each: each is full, and LiveKit saw it.
    const jobsPerWorker = fleet.workers.map(
      (w) => w.logs().filter((l) => l.msg === 'received job request').length,
    );
    const accepted = fleet.workers.map(
      (w, i) => (jobsPerWorker[i] ?? 0) - w.logs().filter((l) => l.msg === REFUSED).length,
    );
    expect(accepted).toEqual([2, 2]);
    for (const worker of fleet.workers) {
      await waitFor(() => worker.logs().some((l) => l.msg === FULL), {
        what: 'each worker to report itself full',
      });
    }

    // No slot anywhere: the start waits for a worker, then answers provider_unavailable.
    const before = performance.now();
    const refused = await agentSession(1);
    const ms = performance.now() - before;
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
    expect(ms).toBeGreaterThanOrEqual(WORKER_WAIT_MS);
    expect(ms).toBeLessThan(WORKER_WAIT_MS + 4000);

    // Every session ran on a worker: its agent is in its room.
    const missing: string[] = [];
    for (const id of [...sessions, appSession]) if (!(await agentIn(id))) missing.push(id);
    if (missing.length > 0) console.log(await whereAre(missing));
    expect(missing).toEqual([]);
  }, 150_000);
});
