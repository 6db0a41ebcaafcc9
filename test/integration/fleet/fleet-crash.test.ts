// A whole worker of the fleet (test/helpers/fleet.ts) dies mid-conversation. The first
// worker takes an Agent session (its user joined through LiveKit node 1) and an application
// session (its backend on backend-sdk, started through api 2); a second worker with free
// slots joins the fleet on node 2; the first worker and its job processes are killed with
// SIGKILL while the agent speaks. The api's hand-over sweep dispatches both sessions again,
// the second worker resumes them: the user, still in the room, hears the agent again, the
// transcript holds both halves, the backend sees one interruption, and each session's
// minutes are charged once.

import { describe, expect } from 'vitest';
import {
  type ApplicationHandlers,
  startApplicationSession,
} from '../../../backend-sdk/src/application/index.ts';
import { agentSessionCostMillicredits } from '../../../src/billing/pricing.ts';
import { modelAnswers, SdkBackend } from '../../e2e/application/sdk-backend.ts';
import { DEFAULT_TEXT } from '../../fakes/llm-server.ts';
import { realtimeTest } from '../../fixtures/realtime.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { creditAccount } from '../../helpers/credit.ts';
import type { Fleet } from '../../helpers/fleet.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import { waitFor } from '../../helpers/wait.ts';
import type { WorkerProcess } from '../../helpers/worker.ts';

const SESSION_CREDITS_PER_MINUTE = 5;
const STT_CREDITS_PER_MINUTE = 6;
const GREETING = 'Hello Grace, I am Ada.';
const RESUMED = 'As I was saying, the story goes on.';

/** The epochs and resumed flags of `sessionId`'s jobs on `worker`. */
const jobsOf = (worker: WorkerProcess, sessionId: string) =>
  worker
    .logs()
    .filter((l) => l.msg === 'session job started' && l.session_id === sessionId)
    .map((l) => [l.epoch, l.resumed]);

const it = realtimeTest.override('fleetOptions', {
  agentName: 'awp-fleet-crash-test',
  workers: 1,
  env: {
    AGENT_SESSION_HANDOVER_AFTER_MS: '3000',
    PRICE_AGENT_SESSION_CREDITS_PER_MINUTE: String(SESSION_CREDITS_PER_MINUTE),
    PRICE_STT_CREDITS_PER_MINUTE: String(STT_CREDITS_PER_MINUTE),
  },
  workerEnv: { WORKER_MAX_SESSIONS: '2' },
});

describe('The fleet: a worker crash', () => {
  let fleet: Fleet;
  let agentId: string;

  it.beforeAll(async ({ fleet: started }) => {
    fleet = started;
    const created = await fleet.api(0)('POST', '/v1/agents', {
      slug: 'fleet-crash-ada',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: {
          name: 'Ada',
          system_prompt: 'You are {{char}}. Be brief.',
          first_mes: 'Hello {{user}}, I am {{char}}.',
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await fleet.api(1)('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 180_000);

  it('hands a killed worker’s live and application sessions to the other worker: the user hears the agent again, both halves are stored, the backend sees one interruption, minutes charged once', async () => {
    const { handle, ws, llm } = fleet;
    const [first] = fleet.workers;
    const node1 = fleet.cluster.nodes[0];
    const node2 = fleet.cluster.nodes[1];
    if (!first || !node1 || !node2) throw new Error('the fleet is incomplete');
    const before = await creditAccount(handle, ws.workspaceId);

    // An Agent session through api 1, its user on node 1.
    const minted = await fleet.api(0)('POST', `/v1/agents/${agentId}/session-tokens`, {});
    const started = await apiClient(fleet.apis[0]?.url as string, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      { sessionContext: { userName: 'Grace' } },
    );
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const liveId = started.body.session_id as string;
    const user = await RoomClient.join(node1.url, started.body.livekit.token);

    // An application session through api 2, its backend on backend-sdk.
    const interruptions: unknown[] = [];
    const handlers: ApplicationHandlers = {
      ...modelAnswers,
      onInterruption: (event) => {
        interruptions.push(event);
      },
    };
    const app = await startApplicationSession(
      { baseUrl: fleet.apis[1]?.url as string, apiKey: ws.productionKey },
      {
        agentId,
        chatSessionId: crypto.randomUUID(),
        requestId: crypto.randomUUID(),
        application: { instructions: 'You are the booking desk.' },
      },
    );
    const appId = app.session.session_id;
    const backend = await SdkBackend.join(app.control, handlers);
    const appUser = await RoomClient.join(app.session.livekit.url, app.session.livekit.token);
    try {
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === GREETING),
        45_000,
        'the greeting',
      );
      expect(jobsOf(first, liveId)).toEqual([[0, false]]);
      expect(jobsOf(first, appId)).toEqual([[0, false]]);

      // A second worker, with free slots, on the other LiveKit node; a warm job process for
      // each session it takes over, so neither waits for a process to start (the gap
      // measures the hand-over, not a cold start on a busy machine).
      const spare = await fleet.startWorker({
        LIVEKIT_URL: node2.url,
        WORKER_IDLE_PROCESSES: '2',
      });

      // A long answer; the first worker dies while it is being spoken.
      const story = Array.from(
        { length: 12 },
        (_, i) => ` Sentence number ${i + 1} of a long story.`,
      );
      llm.script({ text: story, deltaDelayMs: 20 });
      llm.script({ text: ['As', ' I', ' was', ' saying,', ' the', ' story', ' goes', ' on.'] });
      const storyFrom = performance.now();
      await user.sendText('Tell me a long story.');
      await user.waitUntil(() => user.loudFramesSince(storyFrom) > 50, 30_000, 'story audio');
      const killedAt = performance.now();
      await first.kill();
      const lastBefore = user.lastAgentSpeechAt(killedAt);

      // The second worker resumes the Agent session: the user, never reconnected, hears the
      // answer the lost job was giving.
      const resumed = await user.waitUntil(
        () => user.transcripts().find((t) => t.text === RESUMED),
        45_000,
        'the resumed answer',
      );
      expect(resumed.final).toBe(true);
      const firstAfter = await user.agentHeardAgainAfter(killedAt);
      const gapMs = Math.round(firstAfter - lastBefore);
      console.log(`fleet crash gap: last agent audio before the kill to first after: ${gapMs} ms`);
      expect(gapMs).toBeLessThan(15_000);
      expect(jobsOf(spare, liveId)).toEqual([[1, true]]);

      // The application session moved too; its backend saw the interruption once.
      await backend.waitUntil(
        () => interruptions.length === 1,
        30_000,
        'the interruption callback',
      );
      expect(interruptions).toEqual([{ reason: 'worker_lost' }]);
      await waitFor(() => jobsOf(spare, appId).length === 1, {
        what: 'the application session on the second worker',
      });
      expect(jobsOf(spare, appId)).toEqual([[1, true]]);

      // The conversation goes on with the new job.
      await user.sendText('Thank you.');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === DEFAULT_TEXT.join('')),
        30_000,
        'the next answer',
      );
      expect(interruptions).toHaveLength(1);
    } finally {
      await user.leave();
      await appUser.leave();
      await backend.leave();
    }

    // The users left: each session ends once; the live one holds both halves of the transcript.
    for (const id of [liveId, appId]) {
      await waitFor(
        async () => (await fleet.api(0)('GET', `/v1/agent-sessions/${id}`)).body.state !== 'active',
        { what: 'the session to end', timeoutMs: 20_000 },
      );
      expect((await fleet.api(1)('GET', `/v1/agent-sessions/${id}`)).body).toMatchObject({
        state: 'ended',
        end_reason: 'user_left',
      });
    }
    const turns = await handle.db
      .selectFrom('agent_session_messages')
      .select(['role', 'text'])
      .where('session_id', '=', liveId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(turns.map((t) => [t.role, t.text])).toEqual([
      ['agent', GREETING],
      ['user', 'Tell me a long story.'],
      ['agent', RESUMED],
      ['user', 'Thank you.'],
      ['agent', DEFAULT_TEXT.join('')],
    ]);

    // Each session is charged once for its whole time across both jobs; the balance moved
    // by exactly those charges and the speech ledger's.
    await waitFor(async () => (await creditAccount(handle, ws.workspaceId)).openRows === 0, {
      what: 'the speech ledger rows to close',
    });
    const rows = await handle.db
      .selectFrom('agent_sessions')
      .select([
        'id',
        'state',
        'started_at',
        'ended_at',
        'session_ms',
        'stt_ms',
        'llm_millicredits',
        'charged_millicredits',
        'job_epoch',
      ])
      .where('id', 'in', [liveId, appId])
      .execute();
    const live = rows.find((r) => r.id === liveId);
    expect(rows.map((r) => [r.state, Number(r.job_epoch)])).toEqual([
      ['ended', 1],
      ['ended', 1],
    ]);
    const wallMs = Date.parse(live?.ended_at as string) - Date.parse(live?.started_at as string);
    expect(Math.abs(Number(live?.session_ms) - wallMs)).toBeLessThan(1000);
    let charged = 0;
    for (const row of rows) {
      const cost = agentSessionCostMillicredits(
        {
          sessionMs: Number(row.session_ms),
          sttMs: Number(row.stt_ms),
          llmMillicredits: Number(row.llm_millicredits),
        },
        {
          sessionMillicreditsPerMinute: SESSION_CREDITS_PER_MINUTE * 1000,
          sttMillicreditsPerMinute: STT_CREDITS_PER_MINUTE * 1000,
        },
      );
      expect(cost).toBeGreaterThan(0);
      expect(Number(row.charged_millicredits)).toBe(cost);
      charged += cost;
    }
    const after = await creditAccount(handle, ws.workspaceId);
    expect(before.balance - after.balance).toBe(charged + (after.charged - before.charged));
  }, 150_000);
});
