// The web-search capability in text conversations, against fakes of Brave Search and
// SearXNG that speak their wire protocols: the model's query reaches the engine, the
// results come back to the model as plain text, engine failures become results the
// model can answer from, searches are charged on the turn, and a workspace's own key is
// used instead of the deployment's, uncharged.

import { FakeBraveSearch, type FakePage, FakeSearxng } from '../../fakes/web-search.ts';
import {
  afterAll,
  beforeAll,
  describe,
  describeEachDialect,
  expect,
  it,
  signInOperator,
} from '../../fixtures/index.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';
import type { OperatorClient } from '../../helpers/operator.ts';

const PAGES: FakePage[] = [
  {
    title: 'Opera tickets &amp; season 2027',
    url: 'https://opera.example/season',
    description: 'Tickets for the opera season go on sale on 1 December.',
    age: '2 days ago',
  },
  {
    title: 'Cheap opera tickets',
    url: 'https://tickets.example/opera',
    description: 'Last-minute opera tickets from 10 euros.',
  },
  { title: 'Football results', url: 'https://sport.example', description: 'All the scores.' },
];

/** `WEB_SEARCH_PRICE_MILLICREDITS` of the Brave rig. */
const SEARCH_PRICE = 7000;
/** Two model calls of the fake's default usage (21 + 9 tokens) at 1 and 4 millicredits. */
const TWO_CALLS_COST = 42 + 18 * 4;
type ChatBody = {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
};

function askToSearch(rig: ConversationRig, query: string): void {
  rig.openai
    .script({
      text: [],
      toolCalls: [{ id: 'call_s', name: 'web_search', arguments: JSON.stringify({ query }) }],
    })
    .script({ text: ['Sales open on 1 December.'] });
}

/** The tool result the second model call received. */
function toolResult(rig: ConversationRig, sent: number): unknown {
  const body = rig.openai.requests[sent + 1]?.body as ChatBody;
  const message = body.messages.at(-1);
  expect(message?.role).toBe('tool');
  return JSON.parse(message?.content ?? 'null');
}

describeEachDialect('web search on %s', (dialect) => {
  describe('through Brave Search', () => {
    let rig: ConversationRig;
    let brave: FakeBraveSearch;
    let agentId: string;

    beforeAll(async ({ databases, apis }) => {
      brave = await FakeBraveSearch.start(PAGES);
      rig = await startConversationRig(await databases.get(dialect), apis, {
        BRAVE_SEARCH_API_KEY: brave.apiKey,
        BRAVE_SEARCH_API_BASE: brave.url,
        WEB_SEARCH_MAX_RESULTS: '5',
        WEB_SEARCH_PRICE_MILLICREDITS: String(SEARCH_PRICE),
      });
      agentId = await rig.publishedAgent({ web_search_enabled: true });
    });
    afterAll(async () => {
      await rig?.close();
      await brave?.close();
    });

    it('searches with the deployment key and gives the model plain-text results', async () => {
      askToSearch(rig, 'opera tickets');
      const sent = rig.openai.requests.length;
      const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
        text: 'When can I buy opera tickets?',
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const first = rig.openai.requests[sent]?.body as ChatBody;
      expect(first.tools?.map((t) => t.function.name)).toEqual(['web_search']);
      expect(brave.requests).toHaveLength(1);
      expect(brave.requests[0]).toMatchObject({
        path: '/res/v1/web/search',
        query: { q: 'opera tickets', count: '5', text_decorations: 'false' },
        headers: { accept: 'application/json' },
        auth: { present: true, valid: true },
        status: 200,
      });
      expect(toolResult(rig, sent)).toEqual({
        query: 'opera tickets',
        results: [
          {
            title: 'Opera tickets & season 2027',
            url: 'https://opera.example/season',
            snippet: 'Tickets for the opera season go on sale on 1 December.',
            age: '2 days ago',
          },
          {
            title: 'Cheap opera tickets',
            url: 'https://tickets.example/opera',
            snippet: 'Last-minute opera tickets from 10 euros.',
          },
        ],
      });
      // The key is the deployment's secret: never in the logs.
      expect(rig.server.output()).not.toContain(brave.apiKey);
    });

    it('tells the model when the engine is rate limited or fails', async () => {
      for (const [status, message] of [
        [429, 'Web search is busy right now; answer without it or try again in a moment.'],
        [500, 'Web search is unavailable right now; answer without it.'],
      ] as const) {
        brave.failNext(status);
        askToSearch(rig, 'opera');
        const sent = rig.openai.requests.length;
        const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Opera?' });
        expect(reply.status).toBe(200);
        expect(brave.requests.at(-1)?.status).toBe(status);
        expect(toolResult(rig, sent)).toEqual({ error: message });
      }
    });

    /** The ledger row of a turn: its searches, their price and the whole cost. */
    async function ledgerRow(requestId: string | null) {
      const row = await rig.handle.db
        .selectFrom('llm_requests')
        .select([
          'status',
          'error_code',
          'web_searches',
          'web_search_millicredits',
          'cost_millicredits',
          'reserved_millicredits',
        ])
        .where('request_id', '=', requestId ?? '')
        .executeTakeFirstOrThrow();
      return {
        ...row,
        web_searches: Number(row.web_searches),
        web_search_millicredits: Number(row.web_search_millicredits),
        cost_millicredits: Number(row.cost_millicredits),
        reserved_millicredits: Number(row.reserved_millicredits),
      };
    }

    /**
     * A search turn whose balance is set while its first model call runs (`answer`: what a
     * second call says, when one is expected); returns the credit that call held.
     */
    async function searchTurnWithBalance(balance: number, answer?: string) {
      rig.openai.script({
        text: [],
        toolCalls: [{ id: 'call_p', name: 'web_search', arguments: '{"query":"opera tickets"}' }],
        firstTokenDelayMs: 500,
      });
      if (answer !== undefined) rig.openai.script({ text: [answer] });
      const sent = rig.openai.requests.length;
      const pending = rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Opera?' });
      while (rig.openai.requests.length === sent) await new Promise((r) => setTimeout(r, 20));
      const held = await rig.handle.db
        .selectFrom('llm_requests')
        .select('reserved_millicredits')
        .where('status', '=', 'started')
        .executeTakeFirstOrThrow();
      await setBalance(balance);
      return { reply: await pending, sent, held: Number(held.reserved_millicredits) };
    }

    async function setBalance(millicredits: number): Promise<void> {
      await rig.handle.db
        .updateTable('workspaces')
        .set({ credit_balance_millicredits: millicredits })
        .where('id', '=', rig.ws.workspaceId)
        .execute();
    }

    it('charges each search the engine answered at the configured price, with the model calls of its turn', async () => {
      askToSearch(rig, 'opera tickets');
      const before = await rig.balance();
      const searches = brave.requests.length;
      const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
        text: 'When can I buy opera tickets?',
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(brave.requests.length - searches).toBe(1);
      const cost = TWO_CALLS_COST + SEARCH_PRICE;
      expect(reply.body.usage).toEqual({
        input_tokens: 42,
        output_tokens: 18,
        charge: { credits: cost / 1000, amount: cost / 1_000_000, currency: 'USD' },
      });
      expect(await rig.balance()).toBe(before - cost);
      expect(await ledgerRow(reply.headers.get('x-request-id'))).toEqual({
        status: 'succeeded',
        error_code: null,
        web_searches: 1,
        web_search_millicredits: SEARCH_PRICE,
        cost_millicredits: cost,
        reserved_millicredits: 0,
      });

      // A search the engine failed is not charged.
      brave.failNext(500);
      askToSearch(rig, 'opera');
      const beforeFailure = await rig.balance();
      const failed = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Opera?' });
      expect(failed.status).toBe(200);
      expect(brave.requests.at(-1)?.status).toBe(500);
      expect(await rig.balance()).toBe(beforeFailure - TWO_CALLS_COST);
      expect(await ledgerRow(failed.headers.get('x-request-id'))).toMatchObject({
        web_searches: 0,
        web_search_millicredits: 0,
        cost_millicredits: TWO_CALLS_COST,
      });
    });

    it('makes no search the credit cannot cover and tells the model why', async () => {
      const searches = brave.requests.length;
      // Enough for the next model call, not for a search.
      const { reply, sent, held } = await searchTurnWithBalance(
        SEARCH_PRICE - 1,
        'I could not search.',
      );
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(brave.requests.length).toBe(searches);
      expect(toolResult(rig, sent)).toEqual({
        error: 'The workspace credit cannot cover a web search; answer without it.',
      });
      expect(await rig.balance()).toBe(SEARCH_PRICE - 1 + held - TWO_CALLS_COST);
      expect(await ledgerRow(reply.headers.get('x-request-id'))).toMatchObject({
        status: 'succeeded',
        web_searches: 0,
        cost_millicredits: TWO_CALLS_COST,
      });
      await setBalance(1_000_000);
    });

    it('ends the turn 402 insufficient_credit, charging nothing, when the rest cannot be covered', async () => {
      const searches = brave.requests.length;
      const { reply, sent, held } = await searchTurnWithBalance(0);
      expect(reply.status).toBe(402);
      expect(reply.body.code).toBe('insufficient_credit');
      expect(brave.requests.length).toBe(searches);
      expect(rig.openai.requests.length - sent).toBe(1);
      expect(await rig.balance()).toBe(held);
      expect(await ledgerRow(reply.headers.get('x-request-id'))).toEqual({
        status: 'failed',
        error_code: 'insufficient_credit',
        web_searches: 0,
        web_search_millicredits: 0,
        cost_millicredits: 0,
        reserved_millicredits: 0,
      });
      await setBalance(1_000_000);
    });

    describe("with the workspace's own key", () => {
      let owner: OperatorClient;
      let member: OperatorClient;

      beforeAll(async () => {
        const { handle, server, ws } = rig;
        owner = (await signInOperator(handle, server.url, { workspace: ws })).client;
        member = (await signInOperator(handle, server.url, { workspace: ws, role: 'member' }))
          .client;
      });

      it('searches with it, uncharged, until it is cleared', async () => {
        const own = brave.extraKey();
        expect((await owner.request('GET', '/web-search-key')).body).toEqual({
          web_search_key: null,
        });
        const refused = await member.request('PUT', '/web-search-key', { api_key: own });
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ code: 'forbidden' });
        const set = await owner.request('PUT', '/web-search-key', { api_key: own });
        expect(set.status, JSON.stringify(set.body)).toBe(200);
        expect(set.body).toEqual({
          web_search_key: { key_last4: own.slice(-4), updated_at: expect.any(String) },
        });
        const stored = await rig.handle.db
          .selectFrom('workspace_search_keys')
          .select('sealed_key')
          .executeTakeFirstOrThrow();
        expect(stored.sealed_key).toMatch(/^v1\./);
        expect(stored.sealed_key).not.toContain(own);

        askToSearch(rig, 'opera tickets');
        const before = await rig.balance();
        const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
          text: 'When can I buy opera tickets?',
        });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(brave.requests.at(-1)).toMatchObject({
          auth: { present: true, valid: true, key: 'extra' },
          status: 200,
        });
        expect(await rig.balance()).toBe(before - TWO_CALLS_COST);
        expect(await ledgerRow(reply.headers.get('x-request-id'))).toMatchObject({
          web_searches: 0,
          web_search_millicredits: 0,
          cost_millicredits: TWO_CALLS_COST,
        });
        expect(rig.server.output()).not.toContain(own);

        expect((await member.request('DELETE', '/web-search-key')).status).toBe(403);
        expect((await owner.request('DELETE', '/web-search-key')).status).toBe(204);
        expect((await owner.request('GET', '/web-search-key')).body).toEqual({
          web_search_key: null,
        });
        askToSearch(rig, 'opera tickets');
        const again = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Opera?' });
        expect(again.status).toBe(200);
        expect(brave.requests.at(-1)?.auth.key).toBe('deployment');
        expect(await ledgerRow(again.headers.get('x-request-id'))).toMatchObject({
          web_searches: 1,
          cost_millicredits: TWO_CALLS_COST + SEARCH_PRICE,
        });
      });
    });

    it('offers no tool to an Agent with web search off', async () => {
      const plain = await rig.publishedAgent({ web_search_enabled: false });
      rig.openai.script({ text: ['Hi.'] });
      const reply = await rig.api('POST', `/v1/agents/${plain}/messages`, { text: 'Hi' });
      expect(reply.status).toBe(200);
      const body = rig.openai.requests.at(-1)?.body as ChatBody | undefined;
      expect(body?.messages).toContainEqual({ role: 'user', content: 'Hi' });
      expect(body?.tools).toBeUndefined();
    });
  });

  describe('through SearXNG', () => {
    let rig: ConversationRig;
    let searxng: FakeSearxng;
    let agentId: string;

    beforeAll(async ({ databases, apis }) => {
      searxng = await FakeSearxng.start(PAGES);
      rig = await startConversationRig(await databases.get(dialect), apis, {
        SEARXNG_URL: `${searxng.url}/`,
        WEB_SEARCH_MAX_RESULTS: '1',
      });
      agentId = await rig.publishedAgent({ web_search_enabled: true });
    });
    afterAll(async () => {
      await rig?.close();
      await searxng?.close();
    });

    it('asks for JSON and keeps the configured number of results', async () => {
      askToSearch(rig, 'opera tickets');
      const sent = rig.openai.requests.length;
      const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Opera?' });
      expect(reply.status).toBe(200);
      expect(searxng.requests[0]).toMatchObject({
        path: '/search',
        query: { q: 'opera tickets', format: 'json' },
        status: 200,
      });
      expect(toolResult(rig, sent)).toEqual({
        query: 'opera tickets',
        results: [
          {
            title: 'Opera tickets & season 2027',
            url: 'https://opera.example/season',
            snippet: 'Tickets for the opera season go on sale on 1 December.',
            age: '2 days ago',
          },
        ],
      });
    });

    it('reports an instance without its JSON format as unavailable', async () => {
      searxng.failNext(403);
      askToSearch(rig, 'opera');
      const sent = rig.openai.requests.length;
      const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Opera?' });
      expect(reply.status).toBe(200);
      expect(toolResult(rig, sent)).toEqual({
        error: 'Web search is unavailable right now; answer without it.',
      });
    });
  });
});
