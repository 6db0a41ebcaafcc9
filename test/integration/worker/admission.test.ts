// A full worker is not given a job, and a session start that no worker takes answers the
// spec's retryable `provider_unavailable` within AGENT_SESSION_WORKER_WAIT_MS, undone: no
// charge, the session failed (`no_worker`), its room removed, the session token usable
// again. A real livekit-server, the api and the agent worker. The worker is full when its
// session slots are (WORKER_MAX_SESSIONS) or, with WORKER_LOAD_THRESHOLD set, when the
// machine's CPUs are that busy. The user types.

import { setTimeout as sleep } from 'node:timers/promises';
import { RoomServiceClient } from 'livekit-server-sdk';
import { describe, expect } from 'vitest';
import { agentIdentity, sessionRoom } from '../../../src/agent-sessions/livekit-rooms.ts';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { type ApiReply, apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { DIALECTS } from '../../helpers/database.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import { waitFor } from '../../helpers/wait.ts';
import type { WorkerProcess } from '../../helpers/worker.ts';

/** The api's wait for a worker to take a session's job (AGENT_SESSION_WORKER_WAIT_MS). */
const WORKER_WAIT_MS = 6000;
/** How much later than the wait the refusal may come on a busy machine. */
const REFUSAL_SLACK_MS = 3000;
/** Longer than the worker's interval between load reports to LiveKit (2.5 s). */
const LOAD_REPORT_WAIT_MS = 3000;

const FULL = 'worker is at full capacity, marking as unavailable';
const AVAILABLE = 'worker is below capacity, marking as available';

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'sqlite',
  agentName: 'awp-admission',
  stt: 'none',
  env: { WORKER_MAX_SESSIONS: '1', AGENT_SESSION_WORKER_WAIT_MS: String(WORKER_WAIT_MS) },
});

/** The rig's published Agent, and the starts and reads the tests make. */
async function admissionRig(rig: RealtimeRig) {
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
  const agentId = created.body.id as string;
  expect((await rig.api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  const rooms = new RoomServiceClient(
    rig.livekit.httpUrl,
    rig.livekit.apiKey,
    rig.livekit.apiSecret,
  );
  return {
    rig,
    mint: async () => {
      const minted = await rig.api('POST', `/v1/agents/${agentId}/session-tokens`, {});
      expect(minted.status, JSON.stringify(minted.body)).toBe(201);
      return minted.body.token as string;
    },
    /** The start with `token`, and how long it took. */
    start: async (token: string): Promise<ApiReply & { ms: number }> => {
      const started = performance.now();
      const reply = await apiClient(rig.server.url, token)(
        'POST',
        `/v1/agents/${agentId}/sessions`,
        {},
      );
      return { ...reply, ms: performance.now() - started };
    },
    /** A backend's application session start (workspace key), and how long it took. */
    startApplication: async (
      keys = { chatSessionId: crypto.randomUUID(), requestId: crypto.randomUUID() },
    ): Promise<ApiReply & { ms: number }> => {
      const started = performance.now();
      const reply = await rig.api('POST', `/v1/agents/${agentId}/application-sessions`, {
        agentId,
        ...keys,
        application: { instructions: 'You are the booking desk.' },
      });
      return { ...reply, ms: performance.now() - started };
    },
    participants: async (sessionId: string) =>
      (await rooms.listParticipants(sessionRoom(sessionId))).map((p) => p.identity).sort(),
    roomExists: async (sessionId: string) =>
      (await rooms.listRooms([sessionRoom(sessionId)])).length > 0,
    balance: async () =>
      Number(
        (
          await rig.handle.db
            .selectFrom('workspaces')
            .select('credit_balance_millicredits')
            .where('id', '=', rig.ws.workspaceId)
            .executeTakeFirstOrThrow()
        ).credit_balance_millicredits,
      ),
    sessionsOtherThan: (ids: string[]) =>
      rig.handle.db
        .selectFrom('agent_sessions')
        .select(['state', 'end_reason', 'charged_millicredits', 'session_ms'])
        .where('id', 'not in', ids)
        .execute(),
  };
}

type AdmissionRig = Awaited<ReturnType<typeof admissionRig>>;

const logsOf = (worker: WorkerProcess, msg: string) => worker.logs().filter((l) => l.msg === msg);

/** The refusal of a start that no worker took, as the spec's error object. */
function expectNoWorkerRefusal(reply: ApiReply & { ms: number }) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(503);
  expect(reply.body).toEqual({
    event: 'error',
    request_id: expect.any(String),
    code: 'provider_unavailable',
    retryable: true,
    detail:
      'No agent worker took the session in time (every worker is full, or none is running); retry later.',
  });
  expect(reply.ms).toBeGreaterThanOrEqual(WORKER_WAIT_MS);
  expect(reply.ms).toBeLessThan(WORKER_WAIT_MS + REFUSAL_SLACK_MS);
}

describe.each(DIALECTS)('Worker admission and session starts without capacity (%s)', (dialect) => {
  let t: AdmissionRig;

  it.beforeAll(async ({ realtimeRigs }) => {
    t = await admissionRig(
      await realtimeRigs.of(dialect, { agentName: `awp-admission-${dialect}` }),
    );
  }, 180_000);

  it('refuses a start while the only worker has no slot, undoes it, and starts once a slot is free', async () => {
    const first = await t.start(await t.mint());
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const firstId = first.body.session_id as string;
    const client = await RoomClient.join(first.body.livekit.url, first.body.livekit.token);
    let left = false;
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.text === 'Hi.'),
        45_000,
        'the greeting of the first session',
      );
      await waitFor(() => logsOf(t.rig.worker, FULL).length > 0, {
        what: 'the worker to report itself full',
      });
      expect(logsOf(t.rig.worker, FULL)[0]).toMatchObject({ load: 0.7, loadThreshold: 0.7 });

      // The worker is full: the second start waits for a worker, then is refused and undone.
      const balance = await t.balance();
      const token = await t.mint();
      const refused = await t.start(token);
      expectNoWorkerRefusal(refused);
      expect(await t.sessionsOtherThan([firstId])).toEqual([
        { state: 'failed', end_reason: 'no_worker', charged_millicredits: 0, session_ms: 0 },
      ]);
      expect(await t.balance()).toBe(balance);
      const [failed] = await t.rig.handle.db
        .selectFrom('agent_sessions')
        .select('id')
        .where('id', '!=', firstId)
        .execute();
      expect(failed).toBeDefined();
      await waitFor(async () => !(await t.roomExists(failed?.id ?? '')), {
        what: 'the refused session’s room to be removed',
      });

      // A backend's application session start is refused and undone the same way; its
      // retry with the same chatSessionId and requestId is a new start (refused again while
      // the worker is full), not the failed one.
      const keys = { chatSessionId: crypto.randomUUID(), requestId: crypto.randomUUID() };
      expectNoWorkerRefusal(await t.startApplication(keys));
      expectNoWorkerRefusal(await t.startApplication(keys));
      expect(
        await t.rig.handle.db
          .selectFrom('agent_sessions')
          .select(['state', 'end_reason', 'charged_millicredits', 'chat_session_id'])
          .where('kind', '=', 'application')
          .execute(),
      ).toEqual([
        {
          state: 'failed',
          end_reason: 'no_worker',
          charged_millicredits: 0,
          chat_session_id: keys.chatSessionId,
        },
        {
          state: 'failed',
          end_reason: 'no_worker',
          charged_millicredits: 0,
          chat_session_id: keys.chatSessionId,
        },
      ]);
      expect(await t.balance()).toBe(balance);

      // The first session ends: the worker has a slot again, and the same token starts.
      await client.leave();
      left = true;
      await waitFor(() => logsOf(t.rig.worker, AVAILABLE).length > 0, {
        what: 'the worker to report room again',
        timeoutMs: 30_000,
      });
      const second = await t.start(token);
      expect(second.status, JSON.stringify(second.body)).toBe(201);
      const secondId = second.body.session_id as string;
      // The worker took the job before the start answered; its agent joins the room.
      await waitFor(
        async () => (await t.participants(secondId)).includes(agentIdentity(secondId)),
        {
          what: 'the agent to join the second session',
          timeoutMs: 30_000,
        },
      );
    } finally {
      if (!left) await client.leave();
    }
  }, 150_000);
});

describe('Worker admission by CPU, and no worker at all', () => {
  let t: AdmissionRig;

  it.beforeAll(async ({ realtimeRigs }) => {
    t = await admissionRig(await realtimeRigs.of('sqlite', { agentName: 'awp-admission-cpu' }));
  }, 180_000);

  it('refuses starts with no worker registered, and with the only worker at WORKER_LOAD_THRESHOLD', async () => {
    await t.rig.worker.kill();
    const token = await t.mint();
    expectNoWorkerRefusal(await t.start(token));

    const worker = await t.rig.startWorker({
      WORKER_MAX_SESSIONS: '4',
      // Any CPU use at all makes this worker full.
      WORKER_LOAD_THRESHOLD: '0.0001',
    });
    expect(logsOf(worker, 'worker registered')[0]).toMatchObject({
      max_sessions: 4,
      load_threshold: 0.0001,
    });
    await waitFor(() => logsOf(worker, FULL).length > 0, {
      what: 'the worker to report itself full',
    });
    // The load is reported on LiveKit's scale: LiveKit's target load once the CPU is that busy.
    expect(logsOf(worker, FULL)[0]).toMatchObject({ load: 0.7, loadThreshold: 0.7 });

    expectNoWorkerRefusal(await t.start(token));
    expect(
      (await t.sessionsOtherThan([])).map((s) => [s.state, s.end_reason, s.charged_millicredits]),
    ).toEqual([
      ['failed', 'no_worker', 0],
      ['failed', 'no_worker', 0],
    ]);
  }, 120_000);
});

describe('Worker admission up to its last session slot', () => {
  let t: AdmissionRig;

  it.beforeAll(async ({ realtimeRigs }) => {
    t = await admissionRig(await realtimeRigs.of('sqlite', { agentName: 'awp-admission-slots' }));
  }, 180_000);

  // LiveKit offers a job only to a worker whose reported load is below its target load (0.7):
  // a worker of 4 slots that reported 3/4 was never offered the 4th session.
  it('takes a session in every one of its WORKER_MAX_SESSIONS slots, and refuses the next', async () => {
    await t.rig.worker.kill();
    const worker = await t.rig.startWorker({ WORKER_MAX_SESSIONS: '4' });
    const clients: RoomClient[] = [];
    try {
      for (let i = 1; i <= 4; i++) {
        // Each start after the worker reported the sessions before it.
        await sleep(LOAD_REPORT_WAIT_MS);
        const started = await t.start(await t.mint());
        expect(started.status, `start ${i}: ${JSON.stringify(started.body)}`).toBe(201);
        clients.push(await RoomClient.join(started.body.livekit.url, started.body.livekit.token));
      }
      await waitFor(() => logsOf(worker, FULL).length > 0, {
        what: 'the worker to report itself full',
      });
      expect(logsOf(worker, FULL)[0]).toMatchObject({ load: 0.7, loadThreshold: 0.7 });
      expectNoWorkerRefusal(await t.start(await t.mint()));
    } finally {
      for (const client of clients) await client.leave();
    }
  }, 150_000);
});
