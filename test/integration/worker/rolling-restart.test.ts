// A rolling restart of the agent worker: two workers of one fleet (a real livekit-server,
// the api, @livekit/rtc-node as the users). SIGTERM on the worker running a conversation:
// it takes no new sessions (a session started meanwhile runs on the other worker), lets
// the conversation run for WORKER_DRAIN_GRACE_MS, then its job gives the session up and
// the other worker resumes it: the user, still in the room, hears the agent again.

import { describe, expect } from 'vitest';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { RoomClient, SPEECH_RMS } from '../../helpers/room-client.ts';
import { waitFor } from '../../helpers/wait.ts';
import type { WorkerProcess } from '../../helpers/worker.ts';

const GRACE_MS = 15_000;

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'postgres',
  agentName: 'awp-agent-rolling-test',
  stt: 'none',
  env: { AGENT_SESSION_HANDOVER_AFTER_MS: '3000', WORKER_DRAIN_GRACE_MS: String(GRACE_MS) },
  workers: 2,
});

describe('Rolling restart of the agent worker', () => {
  let rig: RealtimeRig;
  let second: WorkerProcess;
  let agentId: string;

  it.beforeAll(async ({ realtimeRig }) => {
    rig = realtimeRig;
    second = rig.workers[1] as WorkerProcess;
    const created = await rig.api('POST', '/v1/agents', {
      slug: 'rolling-ada',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Ada', description: 'A tutor.', first_mes: 'Hello, I am {{char}}.' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await rig.api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 180_000);

  it.afterAll(async () => {
    if (process.env.WORKER_LOG) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(`${process.env.WORKER_LOG}.1`, rig?.worker.output() ?? '');
      writeFileSync(`${process.env.WORKER_LOG}.2`, second?.output() ?? '');
    }
  }, 60_000);

  const startSession = async () => {
    const token = (await rig.api('POST', `/v1/agents/${agentId}/session-tokens`, {})).body
      .token as string;
    const reply = await apiClient(rig.server.url, token)('POST', `/v1/agents/${agentId}/sessions`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const client = await RoomClient.join(reply.body.livekit.url, reply.body.livekit.token);
    await client.waitUntil(
      () => client.transcripts().find((t) => t.text === 'Hello, I am Ada.'),
      45_000,
      'the greeting',
    );
    return { sessionId: reply.body.session_id as string, client };
  };
  const jobsOf = (worker: WorkerProcess, sessionId: string) =>
    worker
      .logs()
      .filter((l) => l.msg === 'session job started' && l.session_id === sessionId)
      .map((l) => [l.epoch, l.resumed]);

  it('stops taking sessions on SIGTERM, lets the conversation run for the grace, then hands it to the other worker', async () => {
    const { llm } = rig;
    const first = await startSession();
    const [draining, staying] = jobsOf(rig.worker, first.sessionId).length
      ? [rig.worker, second]
      : [second, rig.worker];
    expect(jobsOf(draining, first.sessionId)).toEqual([[0, false]]);
    try {
      const exited = new Promise<number | null>((resolve) =>
        draining.child.once('exit', (code) => resolve(code)),
      );
      const termAt = performance.now();
      draining.child.kill('SIGTERM');
      await waitFor(() => draining.output().includes('"msg":"worker stopping"'), {
        what: 'the worker to start draining',
      });

      // A session started while it drains runs on the other worker.
      const during = await startSession();
      expect(jobsOf(staying, during.sessionId)).toEqual([[0, false]]);
      expect(jobsOf(draining, during.sessionId)).toEqual([]);
      await during.client.leave();

      // The conversation goes on during the grace: a long answer, still being spoken when
      // the grace ends.
      llm.script({
        // Longer than the grace by far: still being spoken when the grace ends.
        text: Array.from({ length: 30 }, (_, i) => ` Sentence number ${i + 1} of a long story.`),
        deltaDelayMs: 20,
      });
      llm.script({ text: ['As', ' I', ' was', ' saying,', ' the', ' story', ' goes', ' on.'] });
      const storyFrom = performance.now();
      await first.client.sendText('Tell me a long story.');
      await first.client.waitUntil(
        () => first.client.loudFramesSince(storyFrom) > 50,
        30_000,
        'story audio during the grace',
      );
      expect(performance.now() - termAt).toBeLessThan(GRACE_MS);

      // After the grace the draining worker's job leaves the session to a new job on the
      // other worker, and exits; the user hears the agent again.
      const resumed = await first.client.waitUntil(
        () =>
          first.client.transcripts().find((t) => t.text === 'As I was saying, the story goes on.'),
        45_000,
        'the resumed answer',
      );
      expect(resumed.final).toBe(true);
      expect(await exited).toBe(0);
      expect(
        draining
          .logs()
          .filter(
            (l) =>
              l.msg === 'job shut down mid-conversation; session left to a new job' &&
              l.session_id === first.sessionId,
          )
          .map((l) => [l.epoch, l.released]),
      ).toEqual([[0, true]]);
      expect(jobsOf(staying, first.sessionId)).toEqual([[1, true]]);
      // The gap: the longest silence between agent audio since the story began.
      const loud = first.client.agentAudio
        .filter((f) => f.rms > SPEECH_RMS && f.atMs >= storyFrom)
        .map((f) => f.atMs);
      const gapMs = Math.max(...loud.slice(1).map((at, i) => at - (loud[i] ?? at)));
      console.log(
        `rolling restart gap: longest agent silence over the hand-over: ${Math.round(gapMs)} ms`,
      );
    } finally {
      await first.client.leave();
    }
    let body: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++) {
      body = (await rig.api('GET', `/v1/agent-sessions/${first.sessionId}`)).body;
      if (body.state !== 'active') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(body).toMatchObject({ state: 'ended', end_reason: 'user_left' });
  }, 240_000);
});
