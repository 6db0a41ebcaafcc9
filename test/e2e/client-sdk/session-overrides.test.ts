// Session overrides from the browser client to the real api (the spec's character-card rule
// 5): the client library in Chromium sends `overrides` with the session start, and the api
// runs that session with them (stored with the session, the Agent unchanged). No worker
// joins: each connect ends in `agent_unavailable` once the session was started.

import type { Page } from 'playwright-core';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';
import { openTestPage } from './harness/page.ts';
import { type SessionStub, startSessionStub } from './harness/session-stub.ts';

const PUBLISHED = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: { name: 'Ada', description: 'A patient tutor.', system_prompt: 'Be brief.' },
};
const SESSION_CARD = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: { name: 'Captain', description: 'A pirate.', system_prompt: 'Speak like a pirate.' },
};

describeEachDialect('client SDK session overrides against the real api on %s', (dialect) => {
  let livekit: LivekitServer;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let stub: SessionStub;
  let browser: TestBrowser;
  let page: Page;
  let api: ApiClient;
  let agentId: string;

  beforeAll(
    async ({ databases, apis, livekit: started }) => {
      livekit = started;
      ({ database, handle } = await databases.get(dialect));
      const ws = await seedWorkspace(handle);
      // The stub only serves the page; the page's origin is allowed to start sessions.
      stub = await startSessionStub();
      server = await apis.start(database, {
        env: {
          ...LLM_ENV,
          LIVEKIT_URL: livekit.url,
          LIVEKIT_API_KEY: livekit.apiKey,
          LIVEKIT_API_SECRET: livekit.apiSecret,
          AGENT_NAME: 'awp-agent-test',
          STREAM_ALLOWED_ORIGINS: stub.origin,
        },
      });
      api = apiClient(server.url, ws.productionKey);
      const created = await api('POST', '/v1/agents', {
        slug: 'tutor',
        voice_id: NATIVE_VOICE,
        character_card: PUBLISHED,
      });
      agentId = created.body.id;
      expect((await api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
      browser = await launchBrowser();
      page = await openTestPage(browser, stub.origin);
      // The page's backend: one fresh Agent session token per call.
      await page.exposeFunction('mintAgentToken', async () => {
        const reply = await api('POST', `/v1/agents/${agentId}/session-tokens`, {});
        if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
        return reply.body;
      });
    },
    budget({ servers: 1, extraMs: 60_000 }),
  );

  afterAll(async () => {
    await browser?.close();
    await stub?.close();
  }, 30_000);

  /** Connects with these overrides; the started session's id and how connect() ended. */
  const connectWith = (overrides: unknown) =>
    page.evaluate(
      async ({ agentId, apiOrigin, overrides }) => {
        let sessionId: string | null = null;
        const client = new window.awp.ConversationClient({
          agentId,
          apiOrigin,
          sessionToken: () =>
            (
              window as unknown as { mintAgentToken(): Promise<{ token: string }> }
            ).mintAgentToken(),
          overrides: overrides as never,
          agentJoinTimeoutMs: 1_500,
        });
        client.on('session', (session) => {
          sessionId = session.sessionId;
        });
        const code = await client.connect().then(
          () => 'connected',
          (error: { code: string }) => error.code,
        );
        await client.disconnect();
        return { sessionId, code };
      },
      { agentId, apiOrigin: server.url, overrides },
    );

  const stored = async (sessionId: string | null) => {
    const row = await handle.db
      .selectFrom('agent_sessions')
      .select(['snapshot', 'overrides'])
      .where('id', '=', sessionId ?? '')
      .executeTakeFirstOrThrow();
    return {
      card: JSON.parse(row.snapshot).characterCard.data,
      overrides: JSON.parse(row.overrides ?? 'null'),
    };
  };

  it('runs the session with overrides.characterCard, and with legacy persona / systemPrompt', async () => {
    const card = await connectWith({ characterCard: SESSION_CARD });
    expect(card).toEqual({ sessionId: expect.any(String), code: 'agent_unavailable' });
    expect(await stored(card.sessionId)).toMatchObject({
      card: { name: 'Captain', description: 'A pirate.', system_prompt: 'Speak like a pirate.' },
      overrides: { characterCard: SESSION_CARD },
    });

    const legacy = await connectWith({ systemPrompt: 'Answer in French.' });
    expect(legacy.code).toBe('agent_unavailable');
    expect(await stored(legacy.sessionId)).toMatchObject({
      // The omitted persona inherits the published card.
      card: { name: 'Ada', description: 'A patient tutor.', system_prompt: 'Answer in French.' },
      overrides: { systemPrompt: 'Answer in French.' },
    });

    // The Agent itself is unchanged.
    const agent = await api('GET', `/v1/agents/${agentId}`);
    expect(agent.body.character_card.data).toMatchObject(PUBLISHED.data);
  }, 60_000);
});
