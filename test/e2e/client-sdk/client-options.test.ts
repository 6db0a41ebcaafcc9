// Library tests of the client SDK in Chromium: constructor rules, subscriptions, method
// preconditions, the session-start request (context, overrides) and where it goes when
// `apiOrigin` is omitted, against the session-start stub (no room is joined here: every
// start the stub sees is refused or never sent).

import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import { openTestPage } from './harness/page.ts';
import { type SessionStub, startSessionStub, TEST_PAGE } from './harness/session-stub.ts';

const AGENT_ID = '6f1c2b9e-8a47-4c1d-9e3f-2b5a7c9d0e11';
const ROOT = path.resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);
/** An origin nothing listens on: a start sent there fails with `network_error`. */
const UNREACHABLE = 'http://127.0.0.1:9';
/** The origin an app's bundler fixed at build time (`define: {__AWP_API_ORIGIN__}`). */
const BUILT_IN = 'http://127.0.0.1:7';

/** The library as an app's bundler builds it with the deployment's origin defined. */
async function bundleWithDefinedOrigin(): Promise<string> {
  const esbuild = (await import(
    require.resolve('esbuild', { paths: [require.resolve('tsx')] })
  )) as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, 'client-sdk/src/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    define: { __AWP_API_ORIGIN__: JSON.stringify(BUILT_IN) },
    logLevel: 'error',
  });
  return result.outputFiles[0]?.text ?? '';
}

const CARD = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: { name: 'Captain', description: 'A pirate.', system_prompt: 'Speak like a pirate.' },
};

describe('client SDK in the browser: options and preconditions', () => {
  let browser: TestBrowser;
  let stub: SessionStub;
  let page: Page;

  beforeAll(async () => {
    const html = { type: 'text/html' };
    stub = await startSessionStub(undefined, {
      // A page naming its api in a meta tag.
      '/meta': {
        ...html,
        body: TEST_PAGE.replace(
          '<title>',
          `<meta name="awp-api-origin" content="${UNREACHABLE}/ignored/path"><title>`,
        ),
      },
      // A page whose bundle was built with the deployment's origin.
      '/defined': {
        ...html,
        body: TEST_PAGE.replace('/awp-client.js', '/awp-client-defined.js'),
      },
      '/awp-client-defined.js': { type: 'text/javascript', body: await bundleWithDefinedOrigin() },
    });
    browser = await launchBrowser();
    page = await openTestPage(browser, stub.origin);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stub?.close();
  });

  beforeEach(async () => {
    stub.starts.length = 0;
    await page.evaluate(() => {
      window.events = [];
    });
  });

  /** Constructs a client in the page with these options; returns the thrown error, if any. */
  const construct = (options: Record<string, unknown>) =>
    page.evaluate((opts) => {
      const withToken = { ...opts } as Record<string, unknown>;
      if (withToken.sessionToken === 'fn') withToken.sessionToken = () => 'token';
      if (withToken.startSession === 'fn') withToken.startSession = async () => ({});
      try {
        new window.awp.ConversationClient(withToken as never);
        return null;
      } catch (error) {
        const e = error as { name: string; code: string; message: string };
        return {
          name: e.name,
          code: e.code,
          message: e.message,
          isError: error instanceof window.awp.ConversationError,
        };
      }
    }, options);

  it('rejects an agentId that is not a UUID, saying it must be one', async () => {
    const error = await construct({ agentId: 'concierge', sessionToken: 'fn' });
    expect(error).toEqual({
      name: 'ConversationError',
      code: 'invalid_options',
      isError: true,
      message: expect.stringContaining('agentId must be a UUID'),
    });
    expect(error?.message).toContain('"concierge"');
    expect(await construct({ agentId: AGENT_ID, sessionToken: 'fn' })).toBeNull();
    expect(await construct({ agentId: AGENT_ID.toUpperCase(), sessionToken: 'fn' })).toBeNull();
  });

  it('needs exactly one of sessionToken and startSession', async () => {
    const both = await construct({ agentId: AGENT_ID, sessionToken: 'fn', startSession: 'fn' });
    expect(both).toMatchObject({
      code: 'invalid_options',
      message: expect.stringContaining('exactly one of sessionToken and startSession'),
    });
    const neither = await construct({ agentId: AGENT_ID });
    expect(neither).toMatchObject({ code: 'invalid_options' });
    expect(await construct({ agentId: AGENT_ID, startSession: 'fn' })).toBeNull();
  });

  it('accepts sessionContext only with sessionToken', async () => {
    const error = await construct({
      agentId: AGENT_ID,
      startSession: 'fn',
      sessionContext: { userName: 'Ada' },
    });
    expect(error).toMatchObject({
      code: 'invalid_options',
      message: expect.stringContaining('sessionContext is only accepted with sessionToken'),
    });
    expect(
      await construct({
        agentId: AGENT_ID,
        sessionToken: 'fn',
        sessionContext: { userName: 'Ada' },
      }),
    ).toBeNull();
  });

  it('rejects an apiOrigin that is not an http(s) URL', async () => {
    expect(
      await construct({ agentId: AGENT_ID, sessionToken: 'fn', apiOrigin: 'api.example.com' }),
    ).toMatchObject({ code: 'invalid_options' });
  });

  it('sends nonblank sessionContext values as given and omits blank ones', async () => {
    const bodies = await page.evaluate(
      async ({ agentId, origin }) => {
        const start = async (sessionContext: Record<string, string>) => {
          const client = new window.awp.ConversationClient({
            agentId,
            apiOrigin: origin,
            sessionToken: () => window.freshToken(),
            sessionContext,
          });
          await client.connect().catch(() => undefined);
        };
        await start({ userName: ' Ada Lovelace ', timeZone: '   ' });
        await start({ userName: '', timeZone: 'Europe/Paris' });
        await start({ userName: '  ', timeZone: '' });
      },
      { agentId: AGENT_ID, origin: stub.origin },
    );
    expect(bodies).toBeUndefined();
    // The stub refuses these starts (no LiveKit here), but it saw each request as sent.
    expect(stub.starts.map((s) => s.body)).toEqual([
      { sessionContext: { userName: ' Ada Lovelace ' } },
      { sessionContext: { timeZone: 'Europe/Paris' } },
      {},
    ]);
    expect(stub.starts.every((s) => s.agentId === AGENT_ID)).toBe(true);
    expect(stub.starts.every((s) => /^Bearer stub_[0-9a-f]{24}$/.test(s.authorization ?? ''))).toBe(
      true,
    );
  });

  it('sends overrides with the session start: a complete characterCard, or legacy persona / systemPrompt', async () => {
    await page.evaluate(
      async ({ agentId, origin, card }) => {
        for (const overrides of [
          { characterCard: card },
          { persona: 'A pirate.' },
          { systemPrompt: 'Be brief.', persona: '' },
          {},
        ]) {
          const client = new window.awp.ConversationClient({
            agentId,
            apiOrigin: origin,
            sessionToken: () => window.freshToken(),
            sessionContext: { userName: 'Ada' },
            overrides: overrides as never,
          });
          await client.connect().catch(() => undefined);
        }
      },
      { agentId: AGENT_ID, origin: stub.origin, card: CARD },
    );
    expect(stub.starts.map((s) => s.body)).toEqual([
      { sessionContext: { userName: 'Ada' }, overrides: { characterCard: CARD } },
      { sessionContext: { userName: 'Ada' }, overrides: { persona: 'A pirate.' } },
      {
        sessionContext: { userName: 'Ada' },
        overrides: { systemPrompt: 'Be brief.', persona: '' },
      },
      { sessionContext: { userName: 'Ada' } },
    ]);
  });

  it('refuses characterCard combined with persona or systemPrompt, and overrides with startSession, before any request', async () => {
    const tokenCallsBefore = stub.tokenCalls();
    const combined =
      'overrides.characterCard replaces the whole card: do not combine it with overrides.persona or overrides.systemPrompt.';
    for (const legacy of [{ persona: 'A pirate.' }, { systemPrompt: '' }]) {
      expect(
        await construct({
          agentId: AGENT_ID,
          sessionToken: 'fn',
          overrides: { characterCard: CARD, ...legacy },
        }),
      ).toEqual({
        name: 'ConversationError',
        code: 'invalid_options',
        message: combined,
        isError: true,
      });
    }
    expect(
      await construct({ agentId: AGENT_ID, startSession: 'fn', overrides: { persona: 'x' } }),
    ).toMatchObject({
      code: 'invalid_options',
      message: expect.stringContaining('overrides is only accepted with sessionToken'),
    });
    expect(
      await construct({
        agentId: AGENT_ID,
        sessionToken: 'fn',
        overrides: { characterCard: { ...CARD, spec: 'chara_card_v2' } },
      }),
    ).toMatchObject({
      code: 'invalid_options',
      message: expect.stringContaining('overrides.characterCard must be a character card V3'),
    });
    expect(
      await construct({ agentId: AGENT_ID, sessionToken: 'fn', overrides: { persona: 42 } }),
    ).toMatchObject({ code: 'invalid_options', message: 'overrides.persona must be a string.' });
    expect(stub.tokenCalls()).toBe(tokenCallsBefore);
    expect(stub.starts).toEqual([]);
  });

  it('without apiOrigin, starts sessions at the page’s own origin (an api serving its page)', async () => {
    const result = await page.evaluate(async (agentId) => {
      const client = new window.awp.ConversationClient({
        agentId,
        sessionToken: () => window.freshToken(),
      });
      const error = await client.connect().catch((e: { code: string; status: number }) => e);
      const { code, status } = error as { code: string; status: number };
      return { code, status, defaultOrigin: window.awp.defaultApiOrigin() };
    }, AGENT_ID);
    // The stub (this page's origin) received the start, and refused it (it has no LiveKit).
    expect(result).toEqual({ code: 'unauthorized', status: 401, defaultOrigin: stub.origin });
    expect(stub.starts).toEqual([
      {
        agentId: AGENT_ID,
        authorization: expect.stringMatching(/^Bearer stub_/),
        body: {},
        status: 401,
      },
    ]);
  });

  /** Connects a client without apiOrigin on the page at `path`; what connect() rejects with. */
  const connectWithoutOrigin = async (path: string) => {
    const other = await openTestPage(browser, stub.origin, path);
    try {
      return await other.evaluate(async (agentId) => {
        const client = new window.awp.ConversationClient({ agentId, sessionToken: () => 'token' });
        const error = await client.connect().catch((e: { code: string; message: string }) => e);
        const { code, message } = error as { code: string; message: string };
        return { code, message, defaultOrigin: window.awp.defaultApiOrigin() };
      }, AGENT_ID);
    } finally {
      await other.context().close();
    }
  };

  it('without apiOrigin, a page’s <meta name="awp-api-origin"> names the api', async () => {
    expect(await connectWithoutOrigin('/meta')).toEqual({
      code: 'network_error',
      message: `Could not reach ${UNREACHABLE}/v1/agents/${AGENT_ID}/sessions.`,
      defaultOrigin: UNREACHABLE,
    });
    expect(stub.starts).toEqual([]);
  });

  it('without apiOrigin, a build that defines __AWP_API_ORIGIN__ starts sessions there', async () => {
    expect(await connectWithoutOrigin('/defined')).toEqual({
      code: 'network_error',
      message: `Could not reach ${BUILT_IN}/v1/agents/${AGENT_ID}/sessions.`,
      defaultOrigin: BUILT_IN,
    });
    expect(stub.starts).toEqual([]);
  });

  it('calls sessionToken (sync or async) on every connect and passes api errors through', async () => {
    const tokenCallsBefore = stub.tokenCalls();
    const result = await page.evaluate(
      async ({ agentId, origin }) => {
        let syncCalls = 0;
        const asyncClient = new window.awp.ConversationClient({
          agentId,
          apiOrigin: origin,
          sessionToken: () => window.freshToken(),
        });
        const syncClient = new window.awp.ConversationClient({
          agentId,
          apiOrigin: origin,
          sessionToken: () => {
            syncCalls++;
            return `sync-token-${syncCalls}`;
          },
        });
        const errors = [];
        for (const client of [asyncClient, asyncClient, syncClient, syncClient]) {
          try {
            await client.connect();
          } catch (error) {
            const e = error as {
              code: string;
              status: number;
              requestId: string;
              retryable: boolean;
            };
            errors.push({
              code: e.code,
              status: e.status,
              retryable: e.retryable,
              hasRequestId: Boolean(e.requestId),
            });
          }
        }
        return { syncCalls, errors, state: asyncClient.connectionState };
      },
      { agentId: AGENT_ID, origin: stub.origin },
    );
    expect(stub.tokenCalls() - tokenCallsBefore).toBe(2);
    expect(result.syncCalls).toBe(2);
    expect(result.errors).toEqual(
      Array(4).fill({ code: 'unauthorized', status: 401, retryable: false, hasRequestId: true }),
    );
    expect(result.state).toBe('disconnected');
    expect(stub.starts.map((s) => s.authorization)).toEqual([
      expect.stringMatching(/^Bearer stub_/),
      expect.stringMatching(/^Bearer stub_/),
      'Bearer sync-token-1',
      'Bearer sync-token-2',
    ]);
    expect(stub.starts[0]?.authorization).not.toBe(stub.starts[1]?.authorization);
  });

  it('fails connect with token_expired when the callback returns an expired token, without calling the api', async () => {
    const codes = await page.evaluate(
      async ({ agentId, origin }) => {
        const base64url = (value: object) =>
          btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
        const expiredJwt = `${base64url({ alg: 'HS256' })}.${base64url({ exp: Math.floor(Date.now() / 1000) - 60 })}.sig`;
        const results = [];
        for (const sessionToken of [
          () => expiredJwt,
          async () => ({ token: 'opaque', expires_at: new Date(Date.now() - 1000).toISOString() }),
        ]) {
          const client = new window.awp.ConversationClient({
            agentId,
            apiOrigin: origin,
            sessionToken,
          });
          window.record(client);
          const error = await client.connect().catch((e: { code: string; message: string }) => e);
          results.push({
            code: (error as { code: string }).code,
            message: (error as { message: string }).message,
          });
        }
        return results;
      },
      { agentId: AGENT_ID, origin: stub.origin },
    );
    expect(codes).toEqual([
      {
        code: 'token_expired',
        message: expect.stringContaining('mint a fresh token on every call'),
      },
      {
        code: 'token_expired',
        message: expect.stringContaining('mint a fresh token on every call'),
      },
    ]);
    expect(stub.starts).toEqual([]);
    const events = await page.evaluate(() => window.events);
    expect(events).toEqual([
      { name: 'connectionState', payload: 'connecting' },
      { name: 'connectionState', payload: 'disconnected' },
      { name: 'error', payload: expect.objectContaining({ code: 'token_expired' }) },
      { name: 'connectionState', payload: 'connecting' },
      { name: 'connectionState', payload: 'disconnected' },
      { name: 'error', payload: expect.objectContaining({ code: 'token_expired' }) },
    ]);
  });

  it('on() returns a function that unsubscribes exactly that listener', async () => {
    const seen = await page.evaluate(
      async ({ agentId, origin }) => {
        const client = new window.awp.ConversationClient({
          agentId,
          apiOrigin: origin,
          sessionToken: () => window.freshToken(),
        });
        const kept: string[] = [];
        const dropped: string[] = [];
        client.on('connectionState', (state) => kept.push(state));
        const off = client.on('connectionState', (state) => dropped.push(state));
        const offError = client.on('error', () => dropped.push('error'));
        const names = [
          'session',
          'transcriptProgress',
          'transcript',
          'declined',
          'agentSpeaking',
          'remoteAudioTrack',
        ] as const;
        const others = names.map((name) => typeof client.on(name, () => undefined));
        off();
        offError();
        await client.connect().catch(() => undefined);
        return { kept, dropped, others };
      },
      { agentId: AGENT_ID, origin: stub.origin },
    );
    expect(seen).toEqual({
      kept: ['connecting', 'disconnected'],
      dropped: [],
      others: Array(6).fill('function'),
    });
  });

  it('push-to-talk and controls throw not_connected before connect, input_audio_disabled when input is off', async () => {
    const result = await page.evaluate(
      ({ agentId, origin }) => {
        const attempt = (fn: () => unknown) => {
          try {
            fn();
            return 'no throw';
          } catch (error) {
            return (error as { code: string }).code;
          }
        };
        const voice = new window.awp.ConversationClient({
          agentId,
          apiOrigin: origin,
          sessionToken: () => 't',
        });
        const text = new window.awp.ConversationClient({
          agentId,
          apiOrigin: origin,
          sessionToken: () => 't',
          inputAudioEnabled: false,
        });
        const methods = (c: typeof voice) => [
          attempt(() => c.startPushToTalk()),
          attempt(() => c.commitPushToTalk()),
          attempt(() => c.cancelPushToTalk()),
          attempt(() => c.setMicrophoneEnabled(true)),
          attempt(() => c.setInputMode('automatic')),
          attempt(() => c.interrupt()),
          attempt(() => c.sendText('hello')),
        ];
        return {
          voice: methods(voice),
          text: methods(text),
          mic: voice.microphoneTrack,
          state: voice.connectionState,
        };
      },
      { agentId: AGENT_ID, origin: stub.origin },
    );
    expect(result.voice).toEqual(Array(7).fill('not_connected'));
    expect(result.text).toEqual([
      'input_audio_disabled',
      'input_audio_disabled',
      'input_audio_disabled',
      'input_audio_disabled',
      'not_connected',
      'not_connected',
      'not_connected',
    ]);
    expect(result.mic).toBeNull();
    expect(result.state).toBe('disconnected');
  });

  it('checks the backend session answer: another Agent is a protocol_error', async () => {
    const code = await page.evaluate(async (agentId) => {
      const client = new window.awp.ConversationClient({
        agentId,
        startSession: async () => ({
          session_id: 's',
          agent_id: '00000000-0000-4000-8000-000000000000',
          room: 'r',
          livekit: { url: 'ws://127.0.0.1:9', token: 't' },
          expires_at: new Date().toISOString(),
        }),
      });
      return client.connect().catch((e: { code: string }) => e.code);
    }, AGENT_ID);
    expect(code).toBe('protocol_error');
  });
});
