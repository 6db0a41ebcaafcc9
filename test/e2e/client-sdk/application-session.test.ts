// The client library in an application session, in Chromium: the page's own backend (the
// session stub) starts the session on the real api, keeps `control` (joining the room as
// the data-only backend) and hands the browser only `session`; a protocol peer plays the
// Agent. The session's avatar, input mode, microphone, interrupt and microphoneTrack work
// as in managed sessions;
// the backend participant in the room is never taken for the Agent; a client handed the
// whole answer refuses to connect.

import { dispose, Room } from '@livekit/rtc-node';
import type { Page } from 'playwright-core';
import { v4 as uuidv4 } from 'uuid';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import { apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget, waitFor } from '../../helpers/wait.ts';
import { openTestPage } from './harness/page.ts';
import { ProtocolPeer } from './harness/protocol-peer.ts';
import { type SessionStub, startSessionStub } from './harness/session-stub.ts';

describe('client SDK in an application session (real api, livekit-server, protocol peer)', () => {
  dialectSuite('sqlite');
  let livekit: LivekitServer;
  let database: TestDatabase;
  let server: RunningServer;
  let stub: SessionStub;
  let browser: TestBrowser;
  let page: Page;
  let agentId: string;
  const peers: ProtocolPeer[] = [];
  const backends: Room[] = [];
  /** Every answer the api gave the page's backend, whole. */
  // biome-ignore lint/suspicious/noExplicitAny: asserted field by field.
  const answers: any[] = [];
  let forwardWholeAnswer = false;

  beforeAll(
    async ({ databases, apis, livekit: started }) => {
      livekit = started;
      database = await databases.empty('sqlite');
      const handle = await openTestDatabase(database);
      const ws = await seedWorkspace(handle);
      await handle.close();
      server = await apis.start(database, {
        env: {
          ...LLM_ENV,
          LIVEKIT_URL: livekit.url,
          LIVEKIT_API_KEY: livekit.apiKey,
          LIVEKIT_API_SECRET: livekit.apiSecret,
          AGENT_NAME: 'awp-agent-test',
        },
      });
      const api = apiClient(server.url, ws.productionKey);
      const created = await api('POST', '/v1/agents', { slug: 'desk', voice_id: NATIVE_VOICE });
      agentId = created.body.id;
      expect((await api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);

      stub = await startSessionStub(livekit);
      stub.onApplicationStart(async (requested) => {
        const reply = await api('POST', `/v1/agents/${requested}/application-sessions`, {
          agentId: requested,
          chatSessionId: uuidv4(),
          requestId: uuidv4(),
          application: { instructions: 'You are the booking desk.' },
        });
        if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
        answers.push(reply.body);
        const { control, session } = reply.body;
        // The backend joins first, with its data-only credential, as a real one would.
        const backend = new Room();
        await backend.connect(control.livekit_url, control.token, {
          autoSubscribe: false,
          dynacast: false,
        });
        await backend.localParticipant?.setAttributes({
          'animated-waffle.application.version': '2',
        });
        backends.push(backend);
        peers.push(
          await ProtocolPeer.join(livekit, {
            sessionId: session.session_id,
            agentId: session.agent_id,
            room: session.room,
            userIdentity: `user-${session.session_id}`,
          }),
        );
        return forwardWholeAnswer ? reply.body : session;
      });
      browser = await launchBrowser();
      page = await openTestPage(browser, stub.origin);
    },
    budget({ servers: 1, extraMs: 60_000 }),
  );

  afterAll(async () => {
    await page?.evaluate(() => window.client?.disconnect()).catch(() => undefined);
    for (const peer of peers) await peer.leave().catch(() => undefined);
    for (const backend of backends) await backend.disconnect().catch(() => undefined);
    await browser?.close();
    await stub?.close();
    await dispose();
  }, 30_000);

  const connect = (inputMode: string) =>
    page.evaluate(
      async ({ agentId, inputMode }) => {
        window.events = [];
        window.client = new window.awp.ConversationClient({
          agentId,
          startSession: async ({ agentId: id }) => {
            const r = await fetch('/test/application-session', {
              method: 'POST',
              body: JSON.stringify({ agentId: id }),
            });
            return r.json();
          },
        });
        window.record(window.client);
        try {
          const session = await window.client.connect({ inputMode });
          return { session, mode: window.client.inputMode, error: null };
        } catch (error) {
          const { code, message } = error as { code: string; message: string };
          return { session: null, mode: null, error: { code, message } };
        }
      },
      { agentId, inputMode },
    );

  it('connects with the session part and runs input mode, microphone and interrupt controls', async () => {
    const { session, mode, error } = await connect('automatic');
    expect(error).toBeNull();
    const answer = answers.at(-1);
    const peer = peers.at(-1) as ProtocolPeer;
    expect(session).toEqual({
      sessionId: answer.session.session_id,
      agentId,
      room: answer.session.room,
      livekit: answer.session.livekit,
      // The Agent's avatar, as in a managed session.
      avatar: {
        id: 'avatar_ada',
        name: 'Ada',
        imageUrl: `${server.url}/v1/avatars/avatar_ada/preview`,
      },
      expiresAt: answer.session.expires_at,
    });
    expect(mode).toBe('automatic');
    // The browser shares the room with the backend (a participant without tracks), yet its
    // controls reach the Agent: the peer logs each of them below.
    await page.evaluate(() => window.client.setInputMode('push-to-talk'));
    expect(await page.evaluate(() => window.client.inputMode)).toBe('push-to-talk');
    expect(await page.evaluate(() => window.client.microphoneTrack?.readyState)).toBe('live');

    const userIdentity = `user-${answer.session.session_id}`;
    const microphoneMuted = () =>
      [...(peer.room.remoteParticipants.get(userIdentity)?.trackPublications.values() ?? [])].map(
        (publication) => publication.muted,
      );
    await waitFor(() => microphoneMuted().length === 1, { what: 'the microphone at the Agent' });
    await page.evaluate(() => window.client.setMicrophoneEnabled(false));
    await waitFor(() => microphoneMuted()[0] === true, { what: 'the microphone muted' });
    await page.evaluate(() => window.client.setMicrophoneEnabled(true));
    await waitFor(() => microphoneMuted()[0] === false, { what: 'the microphone unmuted' });

    await page.evaluate(() => window.client.interrupt());
    expect(peer.log.rpcs).toEqual([
      { method: 'awp.input_mode', payload: { mode: 'automatic' } },
      { method: 'awp.input_mode', payload: { mode: 'push-to-talk' } },
      { method: 'awp.interrupt', payload: {} },
    ]);
    expect((await page.evaluate(() => window.events)).filter((e) => e.name === 'error')).toEqual(
      [],
    );

    // Nothing of the backend's credential reached the page.
    const seenByPage = await page.evaluate(() =>
      JSON.stringify({ session: window.client.session, events: window.events }),
    );
    expect(seenByPage).not.toContain(answer.control.token);
    expect(seenByPage).not.toContain('app-backend-');
    await page.evaluate(() => window.client.disconnect());
  }, 90_000);

  it('refuses to connect when the backend forwards the whole answer, control included', async () => {
    forwardWholeAnswer = true;
    try {
      const { session, error } = await connect('push-to-talk');
      expect(session).toBeNull();
      expect(error).toEqual({
        code: 'protocol_error',
        message:
          'startSession returned the whole application-session answer: return only its `session` part and keep `control` on your backend.',
      });
      expect(await page.evaluate(() => window.client.connectionState)).toBe('disconnected');
    } finally {
      forwardWholeAnswer = false;
    }
  }, 60_000);
});
