// Speculative answers in Agent sessions: the worker asks the model with Whisper's transcript
// of the user's pause, before the turn ends, and keeps that answer only when no speech
// follows. A real livekit-server, the api, the agent worker (Silero VAD, the embedded
// Whisper) and the OpenAI chat fake; the user is an rtc-node client speaking espeak-ng
// recordings. Session time, transcription and agent speech are priced at 0 here, so the
// workspace pays only for model calls and the ledger can be checked exactly.

import { describe, expect } from 'vitest';
import { DEFAULT_TEXT, DEFAULT_USAGE } from '../../fakes/llm-server.ts';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { NATIVE_VOICE } from '../../helpers/agents.ts';
import { joinAgentSession } from '../../helpers/realtime-rig.ts';
import {
  lastWordEndMs,
  type RoomClient,
  SPEECH_RMS,
  speech,
  withPause,
} from '../../helpers/room-client.ts';
import { PAUSED_QUESTIONS } from '../../helpers/stt-sentences.ts';
import { waitFor } from '../../helpers/wait.ts';

type ChatBody = { messages: { role: string; content: string | null }[] };

const PRICES_OF_MODEL_CALLS_ONLY = {
  PRICE_AGENT_SESSION_CREDITS_PER_MINUTE: '0',
  PRICE_STT_CREDITS_PER_MINUTE: '0',
  // Agent speech is charged to the workspace per request, through the speech ledger.
  PRICE_NATIVE_CREDITS_PER_1K_CHARS: '0',
};

/** The user's words in the model request `index` of `rig`'s fake, lower case. */
function askedWith(rig: RealtimeRig, index: number): string {
  const messages = (rig.llm.requests[index]?.body as ChatBody | undefined)?.messages ?? [];
  return (messages.findLast((m) => m.role === 'user')?.content ?? '').toLowerCase();
}

async function publishAgent(rig: RealtimeRig): Promise<string> {
  const created = await rig.api('POST', '/v1/agents', {
    slug: 'quick',
    voice_id: NATIVE_VOICE,
    llm_provider: 'openai',
    llm_model: 'gpt-4.1-mini',
    language: 'en',
    character_card: {
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: { name: 'Quick', system_prompt: 'You are {{char}}.', first_mes: 'Hi.' },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await rig.api('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
  return created.body.id as string;
}

/** Starts a session and joins it; resolves once the greeting has finished playing. */
async function startSession(
  rig: RealtimeRig,
  agentId: string,
): Promise<{ sessionId: string; client: RoomClient }> {
  const { sessionId, client } = await joinAgentSession(rig, agentId, 'Hi.');
  // The greeting's last loud frame is behind: a reply may be prepared while the user speaks.
  await client.waitUntil(
    () =>
      performance.now() - (client.agentAudio.filter((f) => f.rms > SPEECH_RMS).at(-1)?.atMs ?? 0) >
      500,
    20_000,
    'the greeting to end',
  );
  return { sessionId, client };
}

async function balance(rig: RealtimeRig): Promise<number> {
  const row = await rig.handle.db
    .selectFrom('workspaces')
    .select('credit_balance_millicredits as balance')
    .where('id', '=', rig.ws.workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.balance);
}

async function endSession(rig: RealtimeRig, client: RoomClient, sessionId: string) {
  await client.leave();
  return waitFor(
    async () => {
      const row = await rig.handle.db
        .selectFrom('agent_sessions')
        .select([
          'state',
          'llm_input_tokens',
          'llm_output_tokens',
          'llm_millicredits',
          'charged_millicredits',
        ])
        .where('id', '=', sessionId)
        .executeTakeFirst();
      return row?.state === 'ended' ? row : undefined;
    },
    { timeoutMs: 30_000, what: 'the session to end' },
  );
}

const turnsSince = (client: RoomClient, from: number, role: 'user' | 'agent') =>
  client
    .transcripts()
    .slice(from)
    .filter((t) => t.role === role && t.final)
    .map((t) => t.text);

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'postgres',
  agentName: 'awp-speculative-worker-test',
  stt: 'embedded',
  env: PRICES_OF_MODEL_CALLS_ONLY,
});

describe('Speculative answers (worker)', () => {
  describe('a user who speaks on after a pause', () => {
    let rig: RealtimeRig;
    let agentId: string;

    it.beforeAll(async ({ realtimeRigs }) => {
      rig = await realtimeRigs.of('postgres', {
        // A turn ends after 9 s of silence: the user below pauses until the model has been
        // asked with the first part (Whisper may take seconds on a busy machine), and
        // the question stays one turn.
        workerEnv: { AGENT_VAD_MIN_SILENCE_MS: '9000', AGENT_PREEMPTIVE_GENERATION: 'true' },
      });
      agentId = await publishAgent(rig);
    }, 180_000);

    it('asks the model at the pause, drops that answer when the user speaks on: it is never spoken and costs nothing', async () => {
      const { sessionId, client } = await startSession(rig, agentId);
      const before = await balance(rig);
      const [first, second] = PAUSED_QUESTIONS[0] as readonly [string, string];
      // The answer to the first part alone would cost far more than the real one.
      rig.llm
        .script({
          text: ['You asked about the weather.'],
          usage: { inputTokens: 500_000, outputTokens: 50_000 },
        })
        .script({ text: ['Sunny in Paris today.'], usage: { inputTokens: 42, outputTokens: 8 } });
      const transcriptsFrom = client.transcripts().length;
      const requestsFrom = rig.llm.requests.length;
      const firstPart = await speech(first);
      const secondPart = await speech(second);
      const asked = await client.say(firstPart, 0);
      // The user stays silent until the model has been asked with what they said so far,
      // then speaks on within the turn.
      const pauseFrom = performance.now();
      while (rig.llm.requests.length === requestsFrom && performance.now() - pauseFrom < 8000) {
        await client.say(new Int16Array(0), 100);
      }
      const spokenOn = await client.say(secondPart, 10_000);
      await client.waitUntil(
        () => turnsSince(client, transcriptsFrom, 'agent').includes('Sunny in Paris today.'),
        45_000,
        'the answer to the whole question',
      );
      // The model was asked twice: at the pause with the first part, then with the whole.
      expect(rig.llm.requests.length - requestsFrom).toBe(2);
      // (Whisper base may mishear "weather" on a busy machine; "what" and "Paris" it keeps.)
      expect(askedWith(rig, requestsFrom)).toContain('what');
      expect(askedWith(rig, requestsFrom)).not.toContain('paris');
      expect(askedWith(rig, requestsFrom + 1)).toContain('what');
      expect(askedWith(rig, requestsFrom + 1)).toContain('paris');
      // One user turn; the client heard only the answer to the whole question, and nothing
      // while the user was speaking.
      const users = turnsSince(client, transcriptsFrom, 'user');
      expect(users).toHaveLength(1);
      expect(users[0]?.toLowerCase()).toContain('paris');
      const wordsEndedAt = spokenOn.startMs + lastWordEndMs(secondPart);
      expect(
        client.agentAudio.filter(
          (f) => f.atMs >= asked.startMs && f.atMs <= wordsEndedAt && f.rms > SPEECH_RMS,
        ),
      ).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(turnsSince(client, transcriptsFrom, 'agent')).toEqual(['Sunny in Paris today.']);

      // The ledger: only the kept answer's tokens, charged exactly once.
      const ended = await endSession(rig, client, sessionId);
      expect(Number(ended.llm_input_tokens)).toBe(42);
      expect(Number(ended.llm_output_tokens)).toBe(8);
      expect(Number(ended.llm_millicredits)).toBeGreaterThan(0);
      expect(Number(ended.charged_millicredits)).toBe(Number(ended.llm_millicredits));
      expect(before - (await balance(rig))).toBe(Number(ended.charged_millicredits));
    }, 120_000);
  });

  // A 300 ms pause: past the 200 ms at which Whisper starts early and the model is asked,
  // within Silero's 450 ms end of speech with margin. At 400 ms Silero itself sometimes ended
  // the turn (one question of three in one run under load); speculative answers never end a
  // turn, so the bench's paused questions measure that rate and this test the speculative path.
  describe('questions with a 300 ms pause, at the production turn settings', () => {
    let rig: RealtimeRig;
    let agentId: string;

    it.beforeAll(async ({ realtimeRigs }) => {
      rig = await realtimeRigs.of('postgres', {
        agentName: 'awp-speculative-pause-worker-test',
        workerEnv: { AGENT_PREEMPTIVE_GENERATION: 'true' },
      });
      agentId = await publishAgent(rig);
    }, 180_000);

    it('takes each as one turn and answers the whole question once, charging that answer only', async () => {
      const { sessionId, client } = await startSession(rig, agentId);
      const before = await balance(rig);
      // Unscripted, the fake answers every request alike: whichever request the worker
      // keeps (asked at the pause or at the end), this is what the user hears.
      const answer = DEFAULT_TEXT.join('');
      const questions = PAUSED_QUESTIONS.slice(0, 3);
      for (const [first, second] of questions) {
        const transcriptsFrom = client.transcripts().length;
        const requestsFrom = rig.llm.requests.length;
        await client.say(withPause(await speech(first), await speech(second), 300));
        await client.waitUntil(
          () => turnsSince(client, transcriptsFrom, 'agent').includes(answer),
          45_000,
          `the answer to "${first} ... ${second}"`,
        );
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const lastWord =
          second
            .toLowerCase()
            .match(/[a-z]+/g)
            ?.at(-1) ?? '';
        const users = turnsSince(client, transcriptsFrom, 'user');
        expect(users, `"${first} ... ${second}"`).toHaveLength(1);
        expect(users[0]?.toLowerCase()).toContain(lastWord);
        expect(turnsSince(client, transcriptsFrom, 'agent')).toEqual([answer]);
        // The last request, whose answer was kept, carried the whole question.
        expect(askedWith(rig, rig.llm.requests.length - 1)).toContain(lastWord);
        expect(rig.llm.requests.length).toBeGreaterThan(requestsFrom);
      }
      // Three answers kept and charged, whatever was asked at the pauses.
      const ended = await endSession(rig, client, sessionId);
      expect(Number(ended.llm_input_tokens)).toBe(questions.length * DEFAULT_USAGE.inputTokens);
      expect(Number(ended.llm_output_tokens)).toBe(questions.length * DEFAULT_USAGE.outputTokens);
      expect(Number(ended.charged_millicredits)).toBe(Number(ended.llm_millicredits));
      expect(before - (await balance(rig))).toBe(Number(ended.charged_millicredits));
    }, 180_000);
  });
});
