// The React package (@awp/react, as published: its dist/ and @awp/client-sdk's) in
// Chromium: a small app built on `ConversationProvider` and `useConversation`, bundled with
// React by esbuild as an app's bundler would, talks to the protocol peer through a real
// livekit-server (harness/session-stub.ts serves the page). The test reads what a user
// sees: the rendered state, session and transcript. React is a peer dependency of
// @awp/react and a devDependency here.

import { createRequire } from 'node:module';
import path from 'node:path';
import { dispose } from '@livekit/rtc-node';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '../../fixtures/index.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { ProtocolPeer } from './harness/protocol-peer.ts';
import { type SessionStub, startSessionStub } from './harness/session-stub.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const AGENT_ID = '6f1c2b9e-8a47-4c1d-9e3f-2b5a7c9d0e11';
const require = createRequire(import.meta.url);

// The app: every field a user would look at, rendered as text, and buttons for the actions.
const APP = `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { ConversationProvider, useConversation } from '@awp/react';

function Talk() {
  const c = useConversation();
  return h('main', null,
    h('p', { id: 'state' }, c.connectionState),
    h('p', { id: 'session' }, c.session ? c.session.sessionId : ''),
    h('p', { id: 'agent-state' }, c.agentState ?? ''),
    h('p', { id: 'error' }, c.error ? c.error.code : ''),
    h('button', { id: 'connect', onClick: () => { c.connect({ inputMode: 'push-to-talk' }).catch(() => {}); } }, 'Talk'),
    h('button', { id: 'send', onClick: () => { c.client.sendText('hello from react').catch(() => {}); } }, 'Send'),
    h('button', { id: 'leave', onClick: () => { c.disconnect(); } }, 'Leave'),
    h('ul', { id: 'transcript' }, c.transcript.map((t) => h('li', { key: t.id }, t.role + ': ' + t.text))),
  );
}

function Outside() {
  try {
    useConversation();
    return h('p', { id: 'outside' }, 'no error');
  } catch (error) {
    return h('p', { id: 'outside' }, error.code);
  }
}

const root = createRoot(document.getElementById('root'));
window.unmountApp = () => root.unmount();
root.render(h('div', null,
  h(Outside),
  h(ConversationProvider, {
    options: {
      agentId: ${JSON.stringify(AGENT_ID)},
      apiOrigin: location.origin,
      sessionToken: async () => (await fetch('/test/token', { method: 'POST' })).json(),
    },
  }, h(Talk)),
));
`;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>react bindings</title>
<script type="module" src="/react-app.js"></script></head><body><div id="root"></div></body></html>`;

/** React, react-dom, @awp/react and @awp/client-sdk in one browser module. */
async function bundleApp(): Promise<string> {
  const esbuild = (await import(
    require.resolve('esbuild', { paths: [require.resolve('tsx')] })
  )) as typeof import('esbuild');
  const result = await esbuild.build({
    stdin: { contents: APP, loader: 'js', resolveDir: ROOT, sourcefile: 'react-app.js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    define: { 'process.env.NODE_ENV': '"development"' },
    logLevel: 'error',
  });
  return result.outputFiles[0]?.text ?? '';
}

describe('React bindings in Chromium (provider and useConversation)', () => {
  let livekit: LivekitServer;
  let stub: SessionStub;
  let browser: TestBrowser;
  let page: Page;
  const peers: ProtocolPeer[] = [];

  beforeAll(async ({ livekit: started }) => {
    livekit = started;
    stub = await startSessionStub(livekit, {
      '/react': { type: 'text/html', body: PAGE },
      '/react-app.js': { type: 'text/javascript', body: await bundleApp() },
    });
    stub.onSession(async (session) => {
      peers.push(await ProtocolPeer.join(livekit, session));
    });
    browser = await launchBrowser();
    const context = await browser.browser.newContext({ permissions: ['microphone'] });
    page = await context.newPage();
    await page.goto(`${stub.origin}/react`);
  }, 90_000);

  afterAll(async () => {
    for (const peer of peers) await peer.leave().catch(() => undefined);
    await browser?.close();
    await stub?.close();
    await dispose();
  }, 30_000);

  const text = (id: string) => page.locator(`#${id}`).textContent({ timeout: 20_000 });
  const shows = (id: string, expected: string, timeoutMs = 20_000) =>
    page.waitForFunction(
      ({ id, expected }) => document.getElementById(id)?.textContent === expected,
      { id, expected },
      { timeout: timeoutMs },
    );

  it('renders the conversation a user follows: connecting, the session, turns, the agent leaving', async () => {
    await shows('state', 'disconnected');
    expect(await text('outside')).toBe('invalid_options');
    expect(await text('transcript')).toBe('');

    await page.click('#connect');
    await shows('state', 'connected', 30_000);
    const peer = peers.at(-1) as ProtocolPeer;
    expect(await text('session')).toBe(peer.session.sessionId);
    expect(stub.starts.at(-1)?.agentId).toBe(AGENT_ID);

    await page.click('#send');
    await page.waitForFunction(
      () => document.querySelectorAll('#transcript li').length === 2,
      undefined,
      { timeout: 20_000 },
    );
    expect(await page.locator('#transcript li').allTextContents()).toEqual([
      'user: hello from react',
      'agent: You said: hello from react',
    ]);
    await shows('agent-state', 'listening');

    // The Agent ends the session: the typed error is rendered and the conversation is over.
    await peer.leave({ endedReason: 'max_duration' });
    await shows('error', 'agent_unavailable');
    await shows('state', 'disconnected');

    // A new conversation starts clean.
    await page.click('#connect');
    await shows('state', 'connected', 30_000);
    expect(await text('error')).toBe('');
    expect(await text('transcript')).toBe('');
    expect(await text('session')).toBe((peers.at(-1) as ProtocolPeer).session.sessionId);

    // Unmounting the provider that created the client ends the conversation: the peer
    // sees the user leave.
    const user = (peers.at(-1) as ProtocolPeer).session.userIdentity;
    const room = (peers.at(-1) as ProtocolPeer).room;
    await page.evaluate(() => (window as unknown as { unmountApp(): void }).unmountApp());
    await expect.poll(() => room.remoteParticipants.has(user), { timeout: 20_000 }).toBe(false);
  }, 120_000);
});
