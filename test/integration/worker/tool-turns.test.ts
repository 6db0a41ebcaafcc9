// A managed Agent's tool calls in Agent sessions: a real livekit-server, the api, the agent
// worker (Silero VAD, the embedded Whisper), the OpenAI chat fake as the model and the
// Brave Search fake, made slow, as the tool's engine. What the end user hears is the
// agent's `awp.transcript` turns; the search fake records when each request came, when it
// was answered and whether the worker went away first.

import { describe, expect } from 'vitest';
import { FakeBraveSearch } from '../../fakes/web-search.ts';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { RoomClient, speech } from '../../helpers/room-client.ts';
import { waitFor } from '../../helpers/wait.ts';

const SEARCH_PRICE = 5000;
const FILLER = 'One moment, let me check that.';
const CREDIT_SHORT = 'The workspace credit cannot cover a web search; answer without it.';

type ChatBody = {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
};

const it = realtimeTest
  /** The Brave Search fake, started before the rig whose variables point at it. */
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  .extend('brave', { scope: 'file' }, async ({}, { onCleanup }) => {
    const brave = await FakeBraveSearch.start([
      { title: 'Paris weather', url: 'https://weather.example/paris', description: 'Sunny.' },
      { title: 'Rome weather', url: 'https://weather.example/rome', description: 'Rain.' },
    ]);
    onCleanup(() => brave.close());
    return brave;
  })
  .override('realtimeOptions', async ({ brave }) => ({
    dialect: 'postgres',
    agentName: 'awp-tool-turns-worker-test',
    stt: 'embedded',
    env: {
      WEB_SEARCH_PROVIDER: 'brave',
      BRAVE_SEARCH_API_KEY: brave.apiKey,
      BRAVE_SEARCH_API_BASE: brave.url,
      WEB_SEARCH_PRICE_MILLICREDITS: String(SEARCH_PRICE),
      // Longer than the slowest search here: only the worker's own cancel aborts one.
      WEB_SEARCH_TIMEOUT_MS: '30000',
      AGENT_TOOL_FILLER_MS: '1000',
      // Only model calls and searches cost anything, so charges are exact.
      PRICE_AGENT_SESSION_CREDITS_PER_MINUTE: '0',
      PRICE_STT_CREDITS_PER_MINUTE: '0',
    },
  }));

describe('Tool calls in Agent sessions (worker)', () => {
  let rig: RealtimeRig;
  let brave: FakeBraveSearch;
  let agentId: string;

  const startSession = async () => {
    const minted = await rig.api('POST', `/v1/agents/${agentId}/session-tokens`, {});
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const reply = await apiClient(rig.server.url, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      {},
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const body = reply.body as { session_id: string; livekit: { url: string; token: string } };
    const client = await RoomClient.join(body.livekit.url, body.livekit.token);
    await client.waitUntil(
      () => client.transcripts().find((t) => t.role === 'agent' && t.text === 'Hi.'),
      60_000,
      'the greeting',
    );
    return { sessionId: body.session_id, client };
  };
  const agentTurnsSince = (client: RoomClient, from: number) =>
    client
      .transcripts()
      .slice(from)
      .filter((t) => t.role === 'agent')
      .map((t) => t.text);
  const search = (id: string, query: string) => ({
    id,
    name: 'web_search',
    arguments: JSON.stringify({ query }),
  });
  const endSession = async (client: RoomClient, sessionId: string) => {
    await client.leave();
    return waitFor(
      async () => {
        const row = await rig.handle.db
          .selectFrom('agent_sessions')
          .select(['state', 'llm_millicredits', 'charged_millicredits'])
          .where('id', '=', sessionId)
          .executeTakeFirst();
        return row?.state === 'ended' ? row : undefined;
      },
      { timeoutMs: 30_000, what: 'the session to end' },
    );
  };

  /** The web searches the session's report counts. */
  const searchesReported = async (sessionId: string) => {
    const report = await rig.api('GET', `/v1/agent-sessions/${sessionId}`);
    expect(report.status, JSON.stringify(report.body)).toBe(200);
    return report.body.usage.web_searches as number;
  };

  it.beforeAll(async ({ realtimeRig, brave: started }) => {
    rig = realtimeRig;
    brave = started;
    const created = await rig.api('POST', '/v1/agents', {
      slug: 'scout',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      language: 'en',
      web_search_enabled: true,
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Scout', system_prompt: 'You are {{char}}.', first_mes: 'Hi.' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await rig.api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 180_000);

  it.afterAll(async () => {
    if (process.env.WORKER_LOG)
      (await import('node:fs')).writeFileSync(process.env.WORKER_LOG, rig?.worker.output() ?? '');
  }, 60_000);

  it('says the filler while a slow search runs, then the answer; searches are charged at their price', async () => {
    const { sessionId, client } = await startSession();
    try {
      brave.delay(() => 2500);
      rig.llm
        .script({ text: [], toolCalls: [search('call_w', 'Paris weather')] })
        .script({ text: ['It is sunny in Paris.'] });
      const from = client.transcripts().length;
      const sent = rig.llm.requests.length;
      await client.sendText('What is the weather in Paris?');
      await client.waitUntil(
        () => agentTurnsSince(client, from).includes('It is sunny in Paris.'),
        45_000,
        'the answer after the slow search',
      );
      expect(agentTurnsSince(client, from)).toEqual([FILLER, 'It is sunny in Paris.']);
      const searched = brave.requests.at(-1);
      expect(searched?.aborted).toBe(false);
      // The model's answer request has the search and its result, and not the filler.
      const answered = rig.llm.requests[sent + 1]?.body as ChatBody;
      expect(answered.messages.map((m) => m.role).slice(-2)).toEqual(['assistant', 'tool']);
      expect(answered.messages.some((m) => m.content === FILLER)).toBe(false);
      expect(JSON.parse(answered.messages.at(-1)?.content ?? '')).toMatchObject({
        query: 'Paris weather',
        results: [{ title: 'Paris weather' }],
      });
    } finally {
      brave.delay(() => 0);
    }
    const ended = await endSession(client, sessionId);
    // One search at its price, plus the session's model calls: nothing else costs here.
    expect(Number(ended.charged_millicredits)).toBe(Number(ended.llm_millicredits) + SEARCH_PRICE);
    expect(await searchesReported(sessionId)).toBe(1);
  });

  it('runs the searches of one turn at the same time, at most four, and gives the results in call order', async () => {
    const { sessionId, client } = await startSession();
    try {
      // The searches finish in another order than they were asked for: the third and
      // fourth first, then the second, then the first. Each takes seconds, so the first four
      // have all started before one answers even when the machine is busy.
      const delays: Record<string, number> = { 'Paris weather': 6000, 'Rome weather': 5000 };
      brave.delay((query) => delays[query] ?? 4000);
      rig.llm
        .script({
          text: [],
          toolCalls: [
            search('call_1', 'Paris weather'),
            search('call_2', 'Rome weather'),
            search('call_3', 'Oslo weather'),
            search('call_4', 'Bern weather'),
            search('call_5', 'Nice weather'),
          ],
        })
        .script({ text: ['Sunny in Paris, rain in Rome.'] });
      const searches = brave.requests.length;
      const sent = rig.llm.requests.length;
      const from = client.transcripts().length;
      await client.sendText('Weather in Paris and Rome?');
      await client.waitUntil(
        () => agentTurnsSince(client, from).includes('Sunny in Paris, rain in Rome.'),
        45_000,
        'the answer after five searches',
      );
      const made = brave.requests.slice(searches);
      expect(made).toHaveLength(5);
      const spans = made.map((r) => ({ from: r.receivedAt, to: r.answeredAt ?? Infinity }));
      const overlapping = (at: number) => spans.filter((s) => s.from <= at && at < s.to).length;
      // The first four overlap (they all started before any finished); the fifth waited for
      // a slot, so it started only after one of them was answered.
      const firstAnswer = Math.min(...spans.slice(0, 4).map((s) => s.to));
      expect(spans.slice(0, 4).every((s) => s.from < firstAnswer)).toBe(true);
      expect(spans[4]?.from).toBeGreaterThanOrEqual(firstAnswer);
      expect(Math.max(...spans.map((s) => overlapping(s.from)))).toBe(4);
      // The model reads the results in the order it made the calls.
      const answered = rig.llm.requests[sent + 1]?.body as ChatBody;
      expect(answered.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(
        ['call_1', 'call_2', 'call_3', 'call_4', 'call_5'],
      );
    } finally {
      brave.delay(() => 0);
    }
    const ended = await endSession(client, sessionId);
    expect(Number(ended.charged_millicredits)).toBe(
      Number(ended.llm_millicredits) + 5 * SEARCH_PRICE,
    );
    expect(await searchesReported(sessionId)).toBe(5);
  });

  it('refuses a search the credit cannot cover: the model reads why and no search is made', async () => {
    const { sessionId, client } = await startSession();
    const { balance } = (await rig.handle.db
      .selectFrom('workspaces')
      .select('credit_balance_millicredits as balance')
      .where('id', '=', rig.ws.workspaceId)
      .executeTakeFirstOrThrow()) as { balance: number | string };
    await rig.handle.db
      .updateTable('workspaces')
      .set({ credit_balance_millicredits: SEARCH_PRICE - 1 })
      .where('id', '=', rig.ws.workspaceId)
      .execute();
    try {
      rig.llm
        .script({ text: [], toolCalls: [search('call_c', 'Paris weather')] })
        .script({ text: ['I cannot search right now.'] });
      const searches = brave.requests.length;
      const sent = rig.llm.requests.length;
      const from = client.transcripts().length;
      await client.sendText('What is the weather in Paris?');
      await client.waitUntil(
        () => agentTurnsSince(client, from).includes('I cannot search right now.'),
        45_000,
        'the answer without a search',
      );
      expect(brave.requests.length).toBe(searches);
      const answered = rig.llm.requests[sent + 1]?.body as ChatBody;
      expect(answered.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_c',
        content: JSON.stringify({ error: CREDIT_SHORT }),
      });
      const ended = await endSession(client, sessionId);
      expect(Number(ended.charged_millicredits)).toBe(Number(ended.llm_millicredits));
    } finally {
      await rig.handle.db
        .updateTable('workspaces')
        .set({ credit_balance_millicredits: Number(balance) })
        .where('id', '=', rig.ws.workspaceId)
        .execute();
    }
  });
  it('cancels a running search when the user speaks over it; its answer is never spoken', async () => {
    const { sessionId, client } = await startSession();
    const stop = await speech('Stop, forget about the weather.');
    try {
      brave.delay(() => 10_000);
      // Later requests (the user's own turn) get the fake's default answer.
      rig.llm.script({ text: [], toolCalls: [search('call_b', 'Paris weather')] });
      const searches = brave.requests.length;
      const sent = rig.llm.requests.length;
      await client.sendText('What is the weather in Paris?');
      await client.waitUntil(() => brave.requests.length > searches, 20_000, 'the search');
      // The user talks over the filler, as someone who does not want to wait would.
      const searchedAt = performance.now();
      await client.waitUntil(
        () => client.loudFramesSince(searchedAt) > 20,
        20_000,
        'the filler audio',
      );
      await client.say(stop);
      await client.waitUntil(
        () => brave.requests[searches]?.aborted,
        10_000,
        'the search to be aborted',
      );
      // Past the time the search would have answered: nothing of it is spoken, and the
      // model was never asked to answer from its result.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, searchedAt + 12_000 - performance.now())),
      );
      expect(brave.requests.slice(searches).map((r) => r.aborted)).toEqual([true]);
      const later = rig.llm.requests.slice(sent + 1).map((r) => r.body as ChatBody);
      const seen = JSON.stringify(later.map((body) => body.messages.slice(-3)));
      expect(
        later.filter((body) => body.messages.at(-1)?.role === 'tool'),
        seen,
      ).toEqual([]);
    } finally {
      brave.delay(() => 0);
    }
    const ended = await endSession(client, sessionId);
    // A cancelled search is not charged.
    expect(Number(ended.charged_millicredits)).toBe(Number(ended.llm_millicredits));
  });
});
