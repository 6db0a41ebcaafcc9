// A live conversation survives its job's crash: a real livekit-server, the api (its
// hand-over sweep), the agent worker and @livekit/rtc-node as the user. The job process of
// a running session is killed with SIGKILL while the agent speaks; the api dispatches the
// Agent again to the same room, a new job of the same worker resumes the conversation, and
// the user, still in the room, hears the agent again. The transcript holds both halves and
// the workspace is charged the session's minutes once. A session in push-to-talk is resumed
// in push-to-talk: the user's open microphone does not cut off the resumed answer.

import { ATTR_INPUT_MODE, RPC_INPUT_MODE } from '@awp/protocol';
import { type RemoteParticipant, RoomEvent } from '@livekit/rtc-node';
import { RoomServiceClient } from 'livekit-server-sdk';
import { describe, expect } from 'vitest';
import { sessionRoom } from '../../../src/agent-sessions/livekit-rooms.ts';
import { agentSessionCostMillicredits } from '../../../src/billing/pricing.ts';
import { DEFAULT_TEXT } from '../../fakes/llm-server.ts';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { creditAccount } from '../../helpers/credit.ts';
import { RoomClient, speech } from '../../helpers/room-client.ts';
import { waitFor } from '../../helpers/wait.ts';

const SESSION_CREDITS_PER_MINUTE = 5;
const STT_CREDITS_PER_MINUTE = 6;

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'postgres',
  agentName: 'awp-agent-handover-test',
  stt: 'none',
  env: {
    AGENT_SESSION_HANDOVER_AFTER_MS: '3000',
    PRICE_AGENT_SESSION_CREDITS_PER_MINUTE: String(SESSION_CREDITS_PER_MINUTE),
    PRICE_STT_CREDITS_PER_MINUTE: String(STT_CREDITS_PER_MINUTE),
  },
});

describe('Agent session hand-over after a crashed job (worker)', () => {
  let rig: RealtimeRig;
  let agentId: string;

  it.beforeAll(async ({ realtimeRig }) => {
    rig = realtimeRig;
    const created = await rig.api('POST', '/v1/agents', {
      slug: 'handover-ada',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: {
          name: 'Ada',
          description: 'A patient tutor.',
          system_prompt: 'You are {{char}}. Be brief.',
          first_mes: 'Hello, I am {{char}}.',
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await rig.api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 180_000);

  it('resumes the conversation in a new job when the job process is killed mid-reply; the user hears the agent again without reconnecting; minutes charged once', async () => {
    const { api, worker, llm, handle, ws, server } = rig;
    const before = await creditAccount(handle, ws.workspaceId);
    const token = (await api('POST', `/v1/agents/${agentId}/session-tokens`, {})).body
      .token as string;
    const reply = await apiClient(server.url, token)('POST', `/v1/agents/${agentId}/sessions`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const sessionId = reply.body.session_id as string;
    const client = await RoomClient.join(reply.body.livekit.url, reply.body.livekit.token);
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.text === 'Hello, I am Ada.'),
        45_000,
        'the greeting',
      );
      // A long answer; the job is killed while it is being spoken.
      const story = Array.from(
        { length: 12 },
        (_, i) => ` Sentence number ${i + 1} of a long story.`,
      );
      llm.script({ text: story, deltaDelayMs: 20 });
      llm.script({ text: ['As', ' I', ' was', ' saying,', ' the', ' story', ' goes', ' on.'] });
      const storyFrom = performance.now();
      await client.sendText('Tell me a long story.');
      await client.waitUntil(() => client.loudFramesSince(storyFrom) > 50, 30_000, 'story audio');
      const job = worker
        .logs()
        .find((l) => l.msg === 'session job started' && l.session_id === sessionId);
      expect(job).toMatchObject({ epoch: 0, resumed: false });
      const killedAt = performance.now();
      process.kill(job?.pid as number, 'SIGKILL');
      const lastBefore = client.lastAgentSpeechAt(killedAt);

      // A new job of the same worker takes the session as epoch 1 and answers the question
      // the lost job was answering, from the stored conversation.
      const resumed = await client.waitUntil(
        () => client.transcripts().find((t) => t.text === 'As I was saying, the story goes on.'),
        45_000,
        'the resumed answer',
      );
      expect(resumed.final).toBe(true);
      const firstAfter = await client.agentHeardAgainAfter(killedAt);
      const gapMs = Math.round(firstAfter - lastBefore);
      console.log(`hand-over gap: last agent audio before the kill to first after: ${gapMs} ms`);
      expect(gapMs).toBeLessThan(15_000);
      // The lost job's participant was taken out of the room before the new job joined:
      // the user saw the Agent leave (and a client could say so) before hearing it again.
      const agentLeft = client.departed.find((d) => d.identity.startsWith('agent-'));
      expect(agentLeft?.atMs).toBeLessThan(firstAfter);
      expect(
        worker
          .logs()
          .filter((l) => l.msg === 'session job started' && l.session_id === sessionId)
          .map((l) => [l.epoch, l.resumed]),
      ).toEqual([
        [0, false],
        [1, true],
      ]);
      // The model was given the conversation so far.
      const resumedRequest = llm.requests.at(-1)?.body as {
        messages: { role: string; content: unknown }[];
      };
      expect(
        resumedRequest.messages
          .filter((m) => m.role !== 'system')
          .map((m) => [
            m.role,
            typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
          ]),
      ).toEqual([
        ['assistant', 'Hello, I am Ada.'],
        ['user', 'Tell me a long story.'],
      ]);

      // The conversation goes on with the new job, well past the time LiveKit takes to
      // time the lost job's participant out (its departure timeout, 15-20 s after the
      // kill): the resumed job, under its own identity, is neither removed with it nor
      // handed over again.
      const resumedIdentity = `agent-${sessionId}-1`;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, killedAt + 25_000 - performance.now())),
      );
      expect([...client.room.remoteParticipants.keys()]).toEqual([resumedIdentity]);
      expect(client.departed.map((d) => d.identity)).toEqual([`agent-${sessionId}`]);
      const thanksFrom = performance.now();
      await client.sendText('Thank you.');
      await client.waitUntil(
        () =>
          client.transcripts().filter((t) => t.role === 'user').length >= 2 &&
          client.transcripts().filter((t) => t.role === 'agent').length >= 3,
        30_000,
        'the next answer',
      );
      await client.waitUntil(() => client.loudFramesSince(thanksFrom) > 20, 15_000, 'its audio');
      expect(
        client.messages
          .filter((m) => m.topic === 'awp.transcript' && m.atMs >= thanksFrom)
          .map((m) => m.from),
      ).toContain(resumedIdentity);
      expect(
        worker
          .logs()
          .filter((l) => l.msg === 'session job started' && l.session_id === sessionId)
          .map((l) => l.epoch),
      ).toEqual([0, 1]);
    } finally {
      await client.leave();
    }

    // The user left: the session ends once, with both halves of the transcript.
    let body: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++) {
      body = (await api('GET', `/v1/agent-sessions/${sessionId}`)).body;
      if (body.state !== 'active') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(body).toMatchObject({ state: 'ended', end_reason: 'user_left' });
    const turns = await handle.db
      .selectFrom('agent_session_messages')
      .select(['role', 'text'])
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(turns.map((t) => [t.role, t.text])).toEqual([
      ['agent', 'Hello, I am Ada.'],
      ['user', 'Tell me a long story.'],
      ['agent', 'As I was saying, the story goes on.'],
      ['user', 'Thank you.'],
      ['agent', DEFAULT_TEXT.join('')],
    ]);

    // Charged once, for the whole session: its time from the first job's start to the
    // end, across both jobs, and its measured usage; speech through the TTS ledger.
    await waitFor(async () => (await creditAccount(handle, ws.workspaceId)).openRows === 0, {
      what: 'the speech ledger rows to close',
    });
    const row = await handle.db
      .selectFrom('agent_sessions')
      .select([
        'started_at',
        'ended_at',
        'session_ms',
        'stt_ms',
        'llm_millicredits',
        'charged_millicredits',
        'job_epoch',
      ])
      .where('id', '=', sessionId)
      .executeTakeFirstOrThrow();
    expect(Number(row.job_epoch)).toBe(1);
    const wallMs = Date.parse(row.ended_at as string) - Date.parse(row.started_at as string);
    expect(Math.abs(Number(row.session_ms) - wallMs)).toBeLessThan(1000);
    const sessionCharge = agentSessionCostMillicredits(
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
    expect(Number(row.charged_millicredits)).toBe(sessionCharge);
    const after = await creditAccount(handle, ws.workspaceId);
    expect(before.balance - after.balance).toBe(sessionCharge + (after.charged - before.charged));
  }, 240_000);

  it('hands the session over at once when the job is taken out of the room from outside', async () => {
    const { api, worker, llm, livekit, server } = rig;
    const token = (await api('POST', `/v1/agents/${agentId}/session-tokens`, {})).body
      .token as string;
    const reply = await apiClient(server.url, token)('POST', `/v1/agents/${agentId}/sessions`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const sessionId = reply.body.session_id as string;
    const client = await RoomClient.join(reply.body.livekit.url, reply.body.livekit.token);
    const jobs = () =>
      worker.logs().filter((l) => l.msg === 'session job started' && l.session_id === sessionId);
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.text === 'Hello, I am Ada.'),
        45_000,
        'the greeting',
      );
      // LiveKit drops the job's participant while its process runs on.
      const rooms = new RoomServiceClient(livekit.httpUrl, livekit.apiKey, livekit.apiSecret);
      const removedAt = Date.now();
      await rooms.removeParticipant(sessionRoom(sessionId), `agent-${sessionId}`);
      const released = await client.waitUntil(
        () =>
          worker
            .logs()
            .find(
              (l) =>
                l.msg === 'job shut down mid-conversation; session left to a new job' &&
                l.session_id === sessionId,
            ),
        30_000,
        'the lease released',
      );
      // At once, not after the framework's 15 s wait for the job's entry to return.
      expect(Date.parse(released.time as string) - removedAt).toBeLessThan(8000);
      expect(released).toMatchObject({ epoch: 0, released: true });
      await client.waitUntil(() => jobs().length === 2, 45_000, 'the resumed job');
      llm.script({ text: ['Still', ' here.'] });
      await client.waitUntil(
        () =>
          client.room.remoteParticipants.get(`agent-${sessionId}-1`)?.attributes[
            'lk.agent.state'
          ] === 'listening',
        30_000,
        'the resumed Agent listening',
      );
      await client.sendText('Are you there?');
      await client.waitUntil(
        () => client.transcripts().find((t) => t.text === 'Still here.'),
        30_000,
        'the resumed Agent answering',
      );
      expect(jobs().map((l) => [l.epoch, l.resumed])).toEqual([
        [0, false],
        [1, true],
      ]);
    } finally {
      await client.leave();
    }
  }, 180_000);
  it('resumes a push-to-talk session in push-to-talk: the user speaking into an open microphone does not cut off the resumed answer', async () => {
    const { api, worker, llm, server } = rig;
    const token = (await api('POST', `/v1/agents/${agentId}/session-tokens`, {})).body
      .token as string;
    const reply = await apiClient(server.url, token)('POST', `/v1/agents/${agentId}/sessions`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const sessionId = reply.body.session_id as string;
    const client = await RoomClient.join(reply.body.livekit.url, reply.body.livekit.token);
    // Every `awp.input_mode` each Agent participant published, in order (a client that is
    // not the SDK: it never sends its mode again to a resumed Agent).
    const modes = new Map<string, string[]>();
    const noteMode = (identity: string, mode: string | undefined) => {
      if (mode === undefined || !identity.startsWith('agent-')) return;
      modes.set(identity, [...(modes.get(identity) ?? []), mode]);
    };
    client.room.on(RoomEvent.ParticipantConnected, (participant: RemoteParticipant) =>
      noteMode(participant.identity, participant.attributes[ATTR_INPUT_MODE]),
    );
    client.room.on(
      RoomEvent.ParticipantAttributesChanged,
      (changed: Record<string, string>, participant: { identity: string }) =>
        noteMode(participant.identity, changed[ATTR_INPUT_MODE]),
    );
    let speaking: Promise<unknown> = Promise.resolve();
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.text === 'Hello, I am Ada.'),
        45_000,
        'the greeting',
      );
      expect(
        await client.rpc(`agent-${sessionId}`, RPC_INPUT_MODE, { mode: 'push-to-talk' }),
      ).toEqual({ ok: true });
      const story = Array.from(
        { length: 12 },
        (_, i) => ` Sentence number ${i + 1} of a long story.`,
      );
      llm.script({ text: story, deltaDelayMs: 20 });
      llm.script({ text: ['As', ' I', ' was', ' saying,', ' the', ' story', ' goes', ' on.'] });
      const storyFrom = performance.now();
      await client.sendText('Tell me a long story.');
      await client.waitUntil(() => client.loudFramesSince(storyFrom) > 50, 30_000, 'story audio');
      const job = worker
        .logs()
        .find((l) => l.msg === 'session job started' && l.session_id === sessionId);
      // The user talks on (to someone else) into the open microphone from the kill until
      // well after the resumed job answers; in push-to-talk that is no turn and no barge-in.
      const words = await speech('I am talking to someone else in the room right now.');
      speaking = Promise.all(Array.from({ length: 8 }, () => client.say(words, 200)));
      process.kill(job?.pid as number, 'SIGKILL');

      const resumed = await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.text.startsWith('As')),
        45_000,
        'the resumed answer',
      );
      expect(resumed).toMatchObject({ text: 'As I was saying, the story goes on.', final: true });
      // The resumed Agent came in push-to-talk, as the session was, and stayed in it.
      expect(modes.get(`agent-${sessionId}`)?.at(-1)).toBe('push-to-talk');
      expect(modes.get(`agent-${sessionId}-1`)).toEqual(['push-to-talk']);
      expect(
        worker
          .logs()
          .filter((l) => l.msg === 'session job started' && l.session_id === sessionId)
          .map((l) => [l.epoch, l.resumed, l.input_mode]),
      ).toEqual([
        [0, false, 'automatic'],
        [1, true, 'push-to-talk'],
      ]);
      await speaking;
      expect(client.transcripts().map((t) => [t.role, t.text])).toEqual([
        ['agent', 'Hello, I am Ada.'],
        ['user', 'Tell me a long story.'],
        ['agent', 'As I was saying, the story goes on.'],
      ]);
    } finally {
      await speaking.catch(() => undefined);
      await client.leave();
    }
  }, 240_000);
});
