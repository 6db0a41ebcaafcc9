// The example backend's page in Chromium: sign in through the form, start talking (the
// page's startSession calls the example, which starts the session on an api stand-in,
// joins with `control` and answers only `session`), send text, hold push-to-talk, hang up,
// sign out. The Agent is the client protocol peer of the client-sdk tests, advertising the
// application protocol so the example's backend join succeeds; the real worker and voice
// are covered by the worker's end-to-end tests.

import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '../../fixtures/index.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { waitFor } from '../../helpers/wait.ts';
import { type ApiStandIn, startApiStandIn } from '../../integration/examples/api-stand-in.ts';
import { type ExampleServer, startExample } from '../../integration/examples/example-server.ts';
import { ProtocolPeer } from '../client-sdk/harness/protocol-peer.ts';

const API_KEY = `awp_${randomUUID().replace(/-/g, '')}`;
const AGENT_ID = randomUUID();

describe('examples/backend page (Chromium, client-sdk, livekit-server)', () => {
  let lk: LivekitServer;
  let api: ApiStandIn<ProtocolPeer>;
  let example: ExampleServer;
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async ({ livekit }) => {
    lk = livekit;
    api = await startApiStandIn(lk, API_KEY, async (session) => {
      const peer = await ProtocolPeer.join(lk, {
        sessionId: session.session_id,
        agentId: session.agent_id,
        room: session.room,
        userIdentity: `user-${session.session_id}`,
      });
      // The worker's capability attribute: without it the example's join fails closed.
      await peer.room.localParticipant?.setAttributes({
        'animated-waffle.application.version': '2',
      });
      return peer;
    });
    example = await startExample({
      AWP_API_KEY: API_KEY,
      AWP_API_URL: api.url,
      AWP_AGENT_ID: AGENT_ID,
    });
    browser = await launchBrowser();
    const context = await browser.browser.newContext({ permissions: ['microphone'] });
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await example?.stop();
    await api?.close();
  }, 60_000);

  const transcript = () =>
    page.$$eval('#transcript li', (items) =>
      items.map((item) => `${item.className}: ${item.textContent}`),
    );
  const badge = () => page.textContent('#connection');

  it('signs in, talks by text and push-to-talk with the session part only, and signs out', async () => {
    await page.goto(`${example.url}/`);
    await page.locator('#sign-in').waitFor({ state: 'visible' });
    await page.fill('#username', 'ada');
    await page.fill('#password', 'demo-ada');
    await page.click('#sign-in-form button[type="submit"]');
    await page.locator('#talk').waitFor({ state: 'visible' });
    expect(await page.textContent('#who')).toBe('Signed in as Ada');

    const sessionAnswer = page.waitForResponse((r) => r.url().endsWith('/api/session'));
    await page.click('#connect');
    const answer = await sessionAnswer;
    // On failure, what the example answered and what the api stand-in refused say why.
    expect({
      status: answer.status(),
      body: answer.status() === 201 ? undefined : await answer.text(),
      refused: api.refused,
    }).toEqual({ status: 201, body: undefined, refused: [] });
    const start = api.starts[0];
    expect(await answer.json()).toEqual(start?.answer.session);
    await waitFor(async () => (await badge()) === 'connected', {
      what: 'the page to connect',
      timeoutMs: 60_000,
    });
    const peer = start?.agent as ProtocolPeer;

    await page.fill('#text', 'Where is A-1001?');
    await page.click('#send');
    await waitFor(
      async () =>
        (await transcript()).includes('agent: You said: Where is A-1001?') && transcript(),
      { what: 'the text turn in the transcript' },
    );
    expect(peer.log.chats.map((chat) => chat.text)).toEqual(['Where is A-1001?']);

    // Hold the talk button, then release: the turn is committed and answered.
    await page.hover('#ptt');
    await page.mouse.down();
    await waitFor(() => peer.log.rpcs.some((rpc) => rpc.method === 'awp.ptt.start'), {
      what: 'push-to-talk to start at the Agent',
    });
    await page.mouse.up();
    const lines = await waitFor(
      async () => (await transcript()).includes('agent: Hi there, how can I help?') && transcript(),
      { what: 'the push-to-talk turn in the transcript' },
    );
    expect(lines).toEqual([
      'user: Where is A-1001?',
      'agent: You said: Where is A-1001?',
      'user: hello agent',
      'agent: Hi there, how can I help?',
    ]);
    expect(peer.log.rpcs.map((rpc) => rpc.method)).toContain('awp.ptt.commit');
    // The backend's credential never reached the page.
    expect(await page.content()).not.toContain(start?.answer.control.token);

    await page.click('#disconnect');
    await waitFor(async () => (await badge()) === 'disconnected', { what: 'the hang-up' });
    await page.click('#sign-out');
    await page.locator('#sign-in').waitFor({ state: 'visible' });
    const afterSignOut = await page.evaluate(async () => {
      const r = await fetch('/api/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: r.status, body: await r.json() };
    });
    expect(afterSignOut).toEqual({
      status: 401,
      body: { code: 'unauthorized', detail: 'sign in first' },
    });
    expect(api.starts).toHaveLength(1);
  }, 180_000);
});
