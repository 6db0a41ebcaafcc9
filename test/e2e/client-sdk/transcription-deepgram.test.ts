// The client SDK's TranscriptionClient and its React hook (useTranscription) in Chromium
// against the real api transcribing through the Deepgram fake, which sends interims that
// reveal the scripted words one at a time while the fake microphone speaks, and the final of
// the segment at each flush and at stop. Also the client's option and state rules.

import { createRequire } from 'node:module';
import path from 'node:path';
import { encodeWav } from '../../../media/wav.ts';
import { type FakeDeepgram, startFakeDeepgram } from '../../fakes/deepgram.ts';
import {
  afterAll,
  beforeAll,
  beforeEach,
  describe,
  dialectSuite,
  expect,
  it,
} from '../../fixtures/index.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { silence, speech } from '../../helpers/transcription.ts';
import { budget } from '../../helpers/wait.ts';
import {
  openTranscriptionPage,
  type RecordedEvent,
  startTranscriptionApp,
  type TranscriptionApp,
} from './harness/transcription-page.ts';

const FIRST = 'What is the weather like today in Paris?';
const SECOND = 'Turn off the lights in the kitchen.';
const MIC_RATE = 48_000;
const WAIT_MS = 30_000;
const ROOT = path.resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);

// A dictation component on useTranscription: what a user sees, as text, and three buttons.
const APP = `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranscription } from '@awp/react';

window.interims = [];
function Dictation() {
  const t = useTranscription({
    token: async () => (await fetch('/token', { method: 'POST' })).json(),
    language: 'en',
  });
  if (t.interim) window.interims.push(t.interim.text);
  return h('main', null,
    h('p', { id: 'state' }, t.connectionState),
    h('p', { id: 'session' }, t.session ? t.session.sessionId : ''),
    h('p', { id: 'interim' }, t.interim ? t.interim.text : ''),
    h('ol', { id: 'finals' }, t.segments.map((s) => h('li', { key: s.segmentId }, s.text))),
    h('p', { id: 'transcript' }, t.transcript),
    h('p', { id: 'credits' }, t.result ? String(t.result.cost.credits) : ''),
    h('p', { id: 'error' }, t.error ? t.error.code : ''),
    h('button', { id: 'start', onClick: () => { t.start().catch(() => {}); } }, 'Dictate'),
    h('button', { id: 'flush', onClick: () => { t.flush().catch(() => {}); } }, 'Done with this line'),
    h('button', { id: 'stop', onClick: () => { t.stop().catch(() => {}); } }, 'Stop'),
  );
}
createRoot(document.getElementById('root')).render(h(Dictation));
`;

const REACT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>dictation</title>
<script type="module" src="/react-app.js"></script></head><body><div id="root"></div></body></html>`;

/** React, react-dom and the bindings in one browser module. */
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

describe('TranscriptionClient in Chromium (api with the Deepgram engine)', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;
  let fake: FakeDeepgram;
  let ws: SeededWorkspace;
  let app: TranscriptionApp;
  let browser: TestBrowser;

  beforeAll(
    async ({ databases, apis }) => {
      const first = await speech(FIRST, MIC_RATE);
      const second = await speech(SECOND, MIC_RATE);
      fake = await startFakeDeepgram({ apiKey: 'dg-test', interimEveryMs: 300 });
      database = await databases.empty('sqlite');
      const handle = await openTestDatabase(database);
      ws = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 1000 });
      await handle.close();
      server = await apis.start(database, {
        env: {
          STT_PROVIDER: 'deepgram',
          DEEPGRAM_API_KEY: 'dg-test',
          DEEPGRAM_BASE_URL: fake.url,
          PRICE_STT_CREDITS_PER_MINUTE: '6',
        },
      });
      app = await startTranscriptionApp(
        server.url,
        { main: ws.productionKey },
        {
          '/react': { type: 'text/html', body: REACT_PAGE },
          '/react-app.js': { type: 'text/javascript', body: await bundleApp() },
        },
      );
      const microphone = encodeWav({
        data: Buffer.concat([
          silence(300, MIC_RATE),
          first,
          silence(1500, MIC_RATE),
          second,
          silence(25_000, MIC_RATE),
        ]),
        sampleRateHz: MIC_RATE,
      });
      browser = await launchBrowser({ microphone });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fake?.close();
  });

  beforeEach(() => fake.reset());

  it('delivers interims that grow into the final of their segment, in order', async () => {
    const page = await openTranscriptionPage(browser, `${app.origin}/`);
    fake.say(FIRST);
    fake.say(SECOND);
    await page.evaluate(async () => {
      window.client = new window.awp.TranscriptionClient({ token: () => window.mintToken() });
      window.recordTranscription(window.client);
      await window.client.start();
    });
    await page.waitForFunction(
      () => window.events.filter((e) => e.name === 'transcript' && !e.payload.final).length >= 3,
      undefined,
      { timeout: WAIT_MS },
    );
    const { flushed, result } = await page.evaluate(async () => ({
      flushed: await window.client.flush(),
      result: await window.client.stop(),
    }));
    const transcripts = ((await page.evaluate(() => window.events)) as RecordedEvent[])
      .filter((e) => e.name === 'transcript')
      .map((e) => e.payload);
    const firstSegment = transcripts.filter((t) => t.segmentId === 1);
    expect(firstSegment.length).toBeGreaterThan(3);
    for (const interim of firstSegment.slice(0, -1)) {
      expect(interim.final).toBe(false);
      expect(FIRST.startsWith(interim.text)).toBe(true);
      expect(interim.text).not.toBe(FIRST);
    }
    expect(firstSegment.at(-1)).toMatchObject({ final: true, text: FIRST, startMs: 0 });
    // Finals in segment order, each after the interims of its segment.
    expect(transcripts.filter((t) => t.final).map((t) => [t.segmentId, t.text])).toEqual([
      [1, FIRST],
      [2, SECOND],
    ]);
    const lastOfOne = transcripts.findIndex((t) => t.segmentId === 1 && t.final);
    expect(transcripts.slice(lastOfOne + 1).every((t) => t.segmentId === 2)).toBe(true);
    expect(flushed).toEqual([firstSegment.at(-1)]);
    expect(result).toMatchObject({ transcript: `${FIRST} ${SECOND}` });
    expect(fake.connections.at(-1)?.controlMessages).toEqual(['Finalize', 'CloseStream']);
    await page.context().close();
  });

  it('useTranscription renders the growing interim, the finals and the cost', async () => {
    fake.say(FIRST);
    fake.say(SECOND);
    const context = await browser.browser.newContext({ permissions: ['microphone'] });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${app.origin}/react`);
    const text = (id: string) => page.locator(`#${id}`).textContent();
    const shows = (id: string, expected: string) =>
      page.waitForFunction(
        ({ id, expected }) => document.getElementById(id)?.textContent === expected,
        { id, expected },
        { timeout: WAIT_MS },
      );
    await shows('state', 'disconnected');
    await page.click('#start');
    await shows('state', 'connected');
    await page.waitForFunction(
      () => (document.getElementById('interim')?.textContent ?? '').split(' ').length >= 2,
      undefined,
      { timeout: WAIT_MS },
    );
    const interim = (await text('interim')) as string;
    expect(FIRST.startsWith(interim)).toBe(true);

    await page.click('#flush');
    await shows('transcript', FIRST);
    expect(await page.locator('#finals li').allTextContents()).toEqual([FIRST]);
    expect(await text('interim')).toBe('');

    await page.click('#stop');
    await shows('state', 'disconnected');
    expect(await page.locator('#finals li').allTextContents()).toEqual([FIRST, SECOND]);
    expect(await text('transcript')).toBe(`${FIRST} ${SECOND}`);
    const sessionId = (await text('session')) as string;
    const read = await fetch(`${server.url}/v1/realtime-transcription-sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    const session = (await read.json()) as { cost: { credits: number }; transcript: string };
    expect(session.transcript).toBe(`${FIRST} ${SECOND}`);
    expect(await text('credits')).toBe(String(session.cost.credits));
    expect(await text('error')).toBe('');
    // Every interim rendered was a beginning of the sentence being spoken.
    const interims =
      (await page.evaluate(() => (window as unknown as { interims: string[] }).interims)) ?? [];
    expect(interims.length).toBeGreaterThan(1);
    expect(interims.every((t) => FIRST.startsWith(t) || SECOND.startsWith(t))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('applies its option rules and method preconditions', async () => {
    const page = await openTranscriptionPage(browser, `${app.origin}/small`);
    const outcome = await page.evaluate(async () => {
      const thrown = (fn: () => unknown) => {
        try {
          fn();
          return null;
        } catch (e) {
          const error = e as { code: string; message: string };
          return `${error.code}: ${error.message}`;
        }
      };
      const { TranscriptionClient } = window.awp;
      const token = () => window.mintToken();
      const client = new TranscriptionClient({ token });
      const rules = {
        noToken: thrown(() => new TranscriptionClient({ token: 'abc' } as never)),
        endpointing: thrown(() => new TranscriptionClient({ token, endpointing: 'auto' } as never)),
        language: thrown(() => new TranscriptionClient({ token, language: 'english!' })),
        apiOrigin: thrown(() => new TranscriptionClient({ token, apiOrigin: 'api.example.com' })),
        flushFirst: thrown(() => client.flush()),
        stopFirst: thrown(() => client.stop()),
        listener: thrown(() => client.on('transcript', 'x' as never)),
      };
      const starting = client.start();
      const twice = thrown(() => client.start());
      await starting;
      await client.close();
      return { rules, twice, state: client.connectionState };
    });
    expect(outcome.rules).toEqual({
      noToken: expect.stringMatching(/^invalid_options: token must be a function/),
      endpointing: 'invalid_options: endpointing must be vad or manual.',
      language: expect.stringMatching(/^invalid_options: language must be a BCP 47 tag/),
      apiOrigin: expect.stringMatching(/^invalid_options: apiOrigin must be an absolute http/),
      flushFirst: expect.stringMatching(/^not_connected: flush\(\) needs a started session/),
      stopFirst: expect.stringMatching(/^not_connected: stop\(\) needs a started session/),
      listener: 'invalid_options: on(name, listener) needs a function.',
    });
    expect(outcome.twice).toBe('already_connected: start() while connecting.');
    expect(outcome.state).toBe('disconnected');
    await page.context().close();
  });
});
