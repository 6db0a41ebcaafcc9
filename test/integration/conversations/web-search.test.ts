// The web-search capability in text conversations, against fakes of Brave Search and
// SearXNG that speak their wire protocols: the model's query reaches the engine, the
// results come back to the model as plain text, and engine failures become results the
// model can answer from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeBraveSearch, type FakePage, FakeSearxng } from '../../fakes/web-search.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';
import { DIALECTS } from '../../helpers/database.ts';

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

describe.each(DIALECTS)('web search on %s', (dialect) => {
  describe('through Brave Search', () => {
    let rig: ConversationRig;
    let brave: FakeBraveSearch;
    let agentId: string;

    beforeAll(async () => {
      brave = await FakeBraveSearch.start(PAGES);
      rig = await startConversationRig(dialect, {
        BRAVE_SEARCH_API_KEY: brave.apiKey,
        BRAVE_SEARCH_API_BASE: brave.url,
        WEB_SEARCH_MAX_RESULTS: '5',
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

    beforeAll(async () => {
      searxng = await FakeSearxng.start(PAGES);
      rig = await startConversationRig(dialect, {
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
