// Live Agent conversations end to end: a real livekit-server, the api, the agent worker
// (its job processes, Silero VAD, the embedded Whisper STT), the OpenAI chat fake as the
// Agent's model, and @livekit/rtc-node as the user's browser. One PostgreSQL database; the
// machine is small, so one worker and the fewest rooms that cover the protocol.

import { describe, expect } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { DEFAULT_TEXT } from '../../fakes/llm-server.ts';
import type { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { realtimeTest } from '../../fixtures/realtime.ts';
import { type ApiClient, apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { lastWordEndMs, RoomClient, SPEECH_RMS, speech } from '../../helpers/room-client.ts';
import type { SeededWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { waitFor } from '../../helpers/wait.ts';
import type { WorkerProcess } from '../../helpers/worker.ts';

const HEARTBEAT_TIMEOUT_MS = 3000;

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'postgres',
  agentName: 'awp-agent-worker-test',
  stt: 'embedded',
  env: { AGENT_SESSION_HEARTBEAT_TIMEOUT_MS: String(HEARTBEAT_TIMEOUT_MS) },
});

describe('Live Agent conversations (worker)', () => {
  let handle: DatabaseHandle;
  let llm: FakeOpenAiChat;
  let server: RunningServer;
  let worker: WorkerProcess;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let agentId: string;

  const startSession = async (body?: unknown) => {
    const token = (await api('POST', `/v1/agents/${agentId}/session-tokens`, {})).body
      .token as string;
    const reply = await apiClient(server.url, token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      body,
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as { session_id: string; livekit: { url: string; token: string } };
  };
  /** The request the fake model received last, as chat messages. */
  const lastLlmMessages = () =>
    (llm.requests.at(-1)?.body as { messages?: { role: string; content: string }[] } | undefined)
      ?.messages ?? [];

  it.beforeAll(async ({ realtimeRig }) => {
    ({ handle, llm, server, worker, ws, api } = realtimeRig);
    const created = await api('POST', '/v1/agents', {
      slug: 'live-ada',
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
          first_mes: 'Hello {{user}}, I am {{char}}.',
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 120_000);

  it.afterAll(async () => {
    if (process.env.WORKER_LOG)
      (await import('node:fs')).writeFileSync(process.env.WORKER_LOG, worker?.output() ?? '');
  }, 60_000);

  it('greets, answers speech and text, stays quiet on purpose, takes barge-in and push-to-talk, and records usage', async () => {
    // The idle job process loads Whisper while it waits (its prewarm), before any session:
    // the user's first words do not wait for the model.
    await waitFor(() => worker.output().includes('"msg":"stt sidecar ready"'), {
      what: 'the idle job process to load its speech model before any session',
    });
    const started = await startSession({
      sessionContext: { userName: 'Grace' },
      overrides: { systemPrompt: 'OVERRIDE: you are {{char}}, a pirate tutor.' },
    });
    const sessionId = started.session_id;
    const agent = `agent-${sessionId}`;
    const client = await RoomClient.join(started.livekit.url, started.livekit.token);
    try {
      // The greeting is first_mes with its macros, heard as real audio.
      const greeting = await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent'),
        45_000,
        'the greeting transcript',
      );
      expect(greeting).toMatchObject({ text: 'Hello Grace, I am Ada.', final: true });
      // The Agent's voice is a built-in US English one: Whisper is told, not left to detect.
      expect(
        worker
          .logs()
          .filter((l) => l.msg === 'recognizer language' && l.session_id === sessionId)
          .map((l) => [l.stt, l.language]),
      ).toEqual([['embedded', 'en']]);
      await client.waitUntil(() => client.loudFramesSince(0) > 20, 20_000, 'greeting audio');
      const captions = client.messages.filter(
        (m) => m.topic === 'lk.transcription' && m.from === agent,
      );
      expect(captions.length).toBeGreaterThan(0);

      // A spoken question with a pause inside it (espeak-ng's own 300 ms after the first
      // clause): transcribed, sent to the model with the override, answered. Whisper starts
      // at the pause, drops that start when the user speaks on, and starts again at the end,
      // which the end of speech then takes (docs/decisions.md, "early transcription").
      const earlyStartsFrom = worker.logs().length;
      const firstClause = await speech('What is the weather like');
      const secondClause = await speech('today in Paris?');
      const paused = new Int16Array(firstClause.length + secondClause.length);
      paused.set(firstClause);
      paused.set(secondClause, firstClause.length);
      const asked = await client.say(paused);
      const userTurn = await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'user'),
        30_000,
        'the user transcript',
      );
      expect(userTurn.text.toLowerCase()).toContain('what');
      expect(userTurn.text.toLowerCase()).toContain('paris');
      expect(
        worker
          .logs()
          .slice(earlyStartsFrom)
          .filter((l) => l.msg === 'stt early start')
          .map((l) => l.outcome),
      ).toEqual(['abandoned', 'used']);
      await client.waitUntil(
        () => client.transcripts().filter((t) => t.role === 'agent').length >= 2,
        30_000,
        'the spoken answer',
      );
      // The session's report holds the turn's voice latency as the worker measured it: from
      // the end of speech its VAD heard to its first audio frame. The client heard the
      // answer later than that after the last word left its microphone: the transport both
      // ways and the jitter buffer come on top.
      const wordsEndedAt = asked.startMs + lastWordEndMs(paused);
      const heardAfterMs =
        (client.agentAudio.find((f) => f.atMs > wordsEndedAt && f.rms > SPEECH_RMS)?.atMs ?? 0) -
        wordsEndedAt;
      const latency = (await api('GET', `/v1/agent-sessions/${sessionId}`)).body.latency as {
        turns: number;
        end_of_speech_to_first_audio_ms: { p50: number; p95: number; max: number };
        transcription_delay_ms: { p50: number } | null;
        llm_first_token_ms: { p50: number } | null;
        tts_first_audio_ms: { p50: number } | null;
      };
      expect(latency.turns).toBe(1);
      const measured = latency.end_of_speech_to_first_audio_ms;
      expect(measured.p50).toBe(measured.max);
      expect(measured.p50).toBeGreaterThan(latency.transcription_delay_ms?.p50 ?? 0);
      expect(measured.p50).toBeLessThan(heardAfterMs);
      expect(latency.llm_first_token_ms?.p50).toBeGreaterThanOrEqual(0);
      expect(latency.tts_first_audio_ms?.p50).toBeGreaterThan(0);
      const messages = lastLlmMessages();
      expect(messages[0]?.role).toBe('system');
      expect(messages[0]?.content).toContain('OVERRIDE: you are Ada, a pirate tutor.');
      expect(messages[0]?.content).toContain('A patient tutor.');
      expect(messages.at(-1)).toMatchObject({ role: 'user' });
      expect(messages.at(-1)?.content.toLowerCase()).toContain('paris');

      // Text in, text only out.
      llm.script({ text: ['Text', ' only', ' answer.'] });
      await client.waitUntil(
        () =>
          performance.now() - (client.agentAudio.filter((f) => f.rms > 0.01).at(-1)?.atMs ?? 0) >
          500,
        10_000,
        'the answer audio to end',
      );
      const quietFrom = performance.now();
      await client.sendText('Please answer in text.', false);
      await client.waitUntil(
        () => client.transcripts().find((t) => t.text === 'Text only answer.'),
        20_000,
        'the text-only answer',
      );
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(client.loudFramesSince(quietFrom)).toBe(0);

      // The model stays quiet on purpose.
      llm.script({
        text: [],
        toolCalls: [{ name: 'stay_quiet', arguments: '{"reason":"not addressed to me"}' }],
      });
      await client.sendText('(talking to someone else)');
      const declined = await client.waitUntil(
        () => client.messages.find((m) => m.topic === 'awp.declined'),
        20_000,
        'awp.declined',
      );
      expect(JSON.parse(declined.text)).toEqual({ reason: 'not addressed to me' });

      // Barge-in: a long answer, interrupted by speech; the agent's audio stops and the
      // persisted turn keeps only what was spoken.
      const story = Array.from(
        { length: 12 },
        (_, i) => ` Sentence number ${i + 1} of a long story.`,
      );
      llm.script({ text: story, deltaDelayMs: 20 });
      const storyFrom = performance.now();
      await client.sendText('Tell me a long story.');
      await client.waitUntil(() => client.loudFramesSince(storyFrom) > 50, 30_000, 'story audio');
      const question = await speech('Stop please, I have a question.');
      const bargeAt = performance.now();
      const speaking = client.say(question);
      const stoppedAt = await client.waitUntil(
        () => {
          const loud = client.agentAudio.filter((f) => f.atMs >= bargeAt && f.rms > 0.01);
          const last = loud.at(-1)?.atMs ?? bargeAt;
          return performance.now() - last > 600 ? last : undefined;
        },
        10_000,
        'the agent audio to stop',
      );
      // Speech reaches the VAD after network and jitter-buffer delays; seen from the client
      // the agent must stop before the user's sentence is over (the 200 ms bound is checked
      // inside the worker, below).
      const questionMs = (question.length * 1000) / 48_000;
      expect(stoppedAt - bargeAt).toBeLessThan(questionMs);
      await speaking;
      // Inside the worker: from Silero's start of speech to the audio output cleared.
      const bargeIns = worker.logs().filter((l) => l.msg === 'barge-in');
      expect(bargeIns.length).toBeGreaterThanOrEqual(1);
      expect(bargeIns[0]?.detected_to_cleared_ms).toBeLessThan(200);
      // The barge-in question is answered; the story is persisted as far as it was spoken.
      await client.waitUntil(
        () =>
          client
            .transcripts()
            .filter((t) => t.role === 'user')
            .some((t) => /question/i.test(t.text)),
        30_000,
        'the barge-in question transcript',
      );
      const fullStory = story.join('').trim();
      // Published when the interrupted turn is persisted, which may follow the question.
      const spokenStory = await client.waitUntil(
        () =>
          client
            .transcripts()
            .find((t) => t.role === 'agent' && t.text.startsWith('Sentence number')),
        15_000,
        'the interrupted story on awp.transcript',
      );
      const agentRows = await handle.db
        .selectFrom('agent_session_messages')
        .select(['id', 'text', 'interrupted'])
        .where('session_id', '=', sessionId)
        .where('role', '=', 'agent')
        .execute();
      const storyRows = agentRows.filter((r) => r.text.includes('Sentence number'));
      expect(storyRows).toHaveLength(1);
      const storyRow = storyRows[0] as { id: string; text: string; interrupted: unknown };
      expect(Number(storyRow.interrupted)).toBe(1);
      expect(storyRow.id).toBe(spokenStory?.id);
      expect(storyRow.text).toBe(spokenStory?.text);
      // What was played: a prefix of the story, cut at a word, well short of its end.
      expect(fullStory.startsWith(storyRow.text)).toBe(true);
      expect(fullStory.charAt(storyRow.text.length)).toMatch(/\s/);
      expect(storyRow.text.length).toBeLessThan(fullStory.length / 2);
      // The model answering the barge-in question was told what the user heard of the
      // story: the spoken prefix as the agent's turn, never the whole story.
      const answering = await client.waitUntil(
        () =>
          llm.requests
            .map(
              (r) => (r.body as { messages?: { role: string; content: string }[] }).messages ?? [],
            )
            .find((m) => m.at(-1)?.role === 'user' && /question/i.test(m.at(-1)?.content ?? '')),
        15_000,
        'the model request answering the barge-in question',
      );
      const agentTurns = answering.filter((m) => m.role === 'assistant').map((m) => m.content);
      expect(agentTurns).toContain(storyRow.text);
      expect(agentTurns.some((text) => text.includes(fullStory))).toBe(false);
      expect(answering.at(-2)).toEqual({ role: 'assistant', content: storyRow.text });

      // The model's default answer to it (as to the first question) is spoken in full
      // before push-to-talk starts, which interrupts the agent.
      await client.waitUntil(
        () =>
          client.transcripts().filter((t) => t.role === 'agent' && t.text === DEFAULT_TEXT.join(''))
            .length >= 2,
        20_000,
        'the spoken answer to the barge-in question',
      );
      // The client was told the agent was speaking while that answer played (the
      // `lk.agent.state` attribute the client library's `agentSpeaking` follows).
      const answerLoud = client.agentAudio.filter((f) => f.atMs > stoppedAt && f.rms > SPEECH_RMS);
      const answerEnd = answerLoud.at(-1)?.atMs ?? stoppedAt;
      expect(
        client.agentStates
          .filter((s) => s.atMs > stoppedAt && s.atMs <= answerEnd)
          .map((s) => s.state),
      ).toContain('speaking');

      // Push-to-talk over RPC.
      expect(await client.rpc(agent, 'awp.input_mode', { mode: 'push-to-talk' })).toEqual({
        ok: true,
      });
      await client.waitUntil(
        () =>
          client.room.remoteParticipants.get(agent)?.attributes['awp.input_mode'] ===
          'push-to-talk',
        5_000,
        'the input mode attribute',
      );
      // A committed push-to-talk turn is transcribed at the commit and answered at once.
      llm.script({ text: ['Heard', ' you.'] });
      const userTurnsBefore = client.transcripts().filter((t) => t.role === 'user').length;
      expect(await client.rpc(agent, 'awp.ptt.start')).toEqual({ ok: true });
      // Silence around the words, as a person holding the button leaves: the capture
      // opens on the first frame after the start and a busy worker may still be reading
      // the last frames when the commit arrives.
      await client.say(new Int16Array(0), 600);
      await client.say(await speech('Push to talk works.'), 2500);
      const committedAt = performance.now();
      expect(await client.rpc(agent, 'awp.ptt.commit')).toEqual({ ok: true });
      const pttTurn = await client.waitUntil(
        () => client.transcripts().filter((t) => t.role === 'user')[userTurnsBefore],
        15_000,
        'the push-to-talk transcript',
      );
      // The whole utterance reached the recognizer: its first and last words (the
      // utterance gate keeps a lead-in and ends the turn on the audio's own clock, so a
      // busy worker reading frames late no longer cuts either end off).
      // Whisper base hears espeak-ng's "Push to talk works." as "posh the thought works."
      // or "post a thought works." at times: the first word is checked by its opening
      // plosive, the last exactly; before the fix it heard "but works." and "push.com.".
      const words = pttTurn.text.toLowerCase().match(/[a-z']+/g) ?? [];
      expect(words[0], pttTurn.text).toMatch(/^p/);
      // The last word arrived (Whisper sometimes glues a syllable on, "artworks", or drops
      // the closing sibilant, "work"; a cut-off end loses the whole word). The middle is
      // not checked word by word: Whisper base merges or drops "to talk" at times.
      expect(words.at(-1), pttTurn.text).toMatch(/works?$/);
      expect(words.length, pttTurn.text).toBeGreaterThanOrEqual(2);
      await client.waitUntil(
        () => client.transcripts().find((t) => t.text === 'Heard you.'),
        15_000,
        'the push-to-talk answer',
      );
      // Answered within the recognizer's time, not at the end of the session.
      expect(performance.now() - committedAt).toBeLessThan(12_000);
      expect(await client.rpc(agent, 'awp.ptt.start')).toEqual({ ok: true });
      expect(await client.rpc(agent, 'awp.ptt.cancel')).toEqual({ ok: true });
      expect(await client.rpc(agent, 'awp.interrupt')).toEqual({ ok: true });
      await expect(client.rpc(agent, 'awp.input_mode', { mode: 'loud' })).rejects.toThrow();
    } finally {
      await client.leave();
    }

    // The user left: the session ends, with its transcript and usage.
    let body: Record<string, unknown> & { usage?: Record<string, unknown> } = {};
    for (let i = 0; i < 60; i++) {
      body = (await api('GET', `/v1/agent-sessions/${sessionId}`)).body;
      if (body.state !== 'active') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(body).toMatchObject({ state: 'ended', end_reason: 'user_left' });
    // The Agent does not record sessions (recording_enabled is off by default).
    expect(body.recording).toBeNull();
    expect((await api('GET', `/v1/agent-sessions/${sessionId}/recording`)).status).toBe(404);
    const persisted = await handle.db
      .selectFrom('agent_session_messages')
      .select('id')
      .where('session_id', '=', sessionId)
      .execute();
    expect(body.transcript_count).toBe(persisted.length);
    // Three spoken turns were answered with audio: the question, the barge-in question and
    // the push-to-talk turn. The greeting and typed turns are not spoken turns. The
    // push-to-talk turn is measured from the key's release, so the 2.5 s the key was held
    // after the words are not in it.
    const sessionLatency = body.latency as {
      turns: number;
      end_of_speech_to_first_audio_ms: { max: number };
    };
    expect(sessionLatency.turns).toBe(3);
    expect(sessionLatency.end_of_speech_to_first_audio_ms.max).toBeLessThan(2_500);
    const usage = body.usage as {
      charge: { credits: number; amount: number; currency: string };
      session_seconds: number;
      llm_input_tokens: number;
      llm_output_tokens: number;
      tts_characters: number;
      stt_seconds: number;
    };
    expect(usage.llm_input_tokens).toBeGreaterThan(0);
    expect(usage.llm_output_tokens).toBeGreaterThan(0);
    expect(usage.tts_characters).toBeGreaterThan(20);
    expect(usage.stt_seconds).toBeGreaterThan(1);
    expect(usage.session_seconds).toBeGreaterThan(5);
    expect(usage.charge.credits).toBeGreaterThan(0);
    expect(usage.charge.amount).toBeCloseTo(usage.charge.credits / 1000, 9);
    expect(usage.charge.currency).toBe('USD');
    // Agent speech went through the api's ledger, billed to the session's workspace.
    const ledger = await handle.db
      .selectFrom('synthesis_requests')
      .select(['status', 'workspace_id', 'transport', 'chars_synthesized'])
      .where('partner_session_id', '=', `agent-session:${sessionId}`)
      .execute();
    expect(ledger.length).toBeGreaterThan(1);
    expect(new Set(ledger.map((r) => r.workspace_id))).toEqual(new Set([ws.workspaceId]));
    expect(ledger.every((r) => r.transport === 'websocket' && r.status !== 'started')).toBe(true);
  }, 240_000);

  it('tells the recognizer the Agent’s own language; fails only the sessions of a killed worker: the client sees the agent leave, the api reports failed', async () => {
    // The Agent's language, published, reaches the session's recognizer over its voice's.
    expect((await api('PATCH', `/v1/agents/${agentId}`, { language: 'fr-CA' })).status).toBe(200);
    expect((await api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
    const started = await startSession();
    const client = await RoomClient.join(started.livekit.url, started.livekit.token);
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent'),
        45_000,
        'the greeting',
      );
      expect(
        worker
          .logs()
          .filter((l) => l.msg === 'recognizer language' && l.session_id === started.session_id)
          .map((l) => [l.stt, l.language]),
      ).toEqual([['embedded', 'fr']]);
      const killedAt = performance.now();
      await worker.kill();
      const gone = await client.waitUntil(
        () => client.departed.find((d) => d.identity === `agent-${started.session_id}`),
        30_000,
        'the agent to leave the room',
      );
      expect(gone.atMs).toBeGreaterThan(killedAt);
      let body: Record<string, unknown> = {};
      for (let i = 0; i < 40; i++) {
        body = (await api('GET', `/v1/agent-sessions/${started.session_id}`)).body;
        if (body.state === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(body).toMatchObject({ state: 'failed', end_reason: 'worker_lost' });
    } finally {
      await client.leave();
    }
  }, 120_000);
});
