// The demo page in Chromium, served by the real api (DEMO_PAGE on): its strict CSP lets the
// bundle run, it lists the published Agents through the dev-only endpoint and enables
// Connect, in automatic turn-taking (just speak) with push-to-talk one click away.
// Connecting needs the session route and worker (tested end to end elsewhere).

import type { Page } from 'playwright-core';
import { bootstrapWorkspace } from '../../../src/workspaces/bootstrap.ts';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import { apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

describe('demo page in the browser', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;
  let browser: TestBrowser;
  let page: Page;
  let agentId: string;
  const problems: string[] = [];

  beforeAll(async ({ databases, apis }) => {
    database = await databases.empty('sqlite');
    const handle = await openTestDatabase(database);
    const boot = await bootstrapWorkspace(handle.db);
    await handle.close();
    if (!boot) throw new Error('bootstrap did not create a workspace');
    server = await apis.start(database, { env: { ...LLM_ENV, DEMO_PAGE: 'true' } });
    const dev = apiClient(server.devUrl, boot.developmentKey.key);
    const created = await dev('POST', '/v1/agents', {
      slug: 'clara',
      voice_id: NATIVE_VOICE,
      display_name: 'Clara',
    });
    agentId = created.body.id;
    expect((await dev('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
    browser = await launchBrowser();
    page = await browser.browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('loads under its CSP, lists the published Agent and enables Connect', async () => {
    await page.goto(`${server.devUrl.replace('127.0.0.1', 'localhost')}/demo`);
    await page.waitForFunction(() => {
      const select = document.getElementById('agent') as HTMLSelectElement | null;
      return select !== null && select.options.length > 0 && select.value !== '';
    });
    const state = await page.evaluate(() => ({
      options: [...(document.getElementById('agent') as HTMLSelectElement).options].map((o) => ({
        value: o.value,
        text: o.text,
      })),
      connectDisabled: (document.getElementById('connect') as HTMLButtonElement).disabled,
      pttDisabled: (document.getElementById('ptt') as HTMLButtonElement).disabled,
      connection: document.getElementById('connection')?.textContent,
      styled: getComputedStyle(document.querySelector('.panel') as Element).borderRadius,
    }));
    expect(state).toEqual({
      options: [{ value: agentId, text: `Clara (${agentId.slice(0, 8)})` }],
      connectDisabled: false,
      pttDisabled: true,
      connection: 'disconnected',
      styled: '10px',
    });
    expect(problems).toEqual([]);
  });

  it('starts in automatic turn-taking; push-to-talk is one click away', async () => {
    const modes = () =>
      page.evaluate(() => ({
        choices: [...document.querySelectorAll<HTMLInputElement>('input[name="mode"]')].map(
          (radio) => ({ value: radio.value, checked: radio.checked }),
        ),
        talkButton: document.getElementById('ptt')?.textContent,
      }));
    expect(await modes()).toEqual({
      choices: [
        { value: 'automatic', checked: true },
        { value: 'push-to-talk', checked: false },
      ],
      talkButton: 'Automatic mode: just speak',
    });
    await page.click('input[name="mode"][value="push-to-talk"]');
    expect(await modes()).toEqual({
      choices: [
        { value: 'automatic', checked: false },
        { value: 'push-to-talk', checked: true },
      ],
      talkButton: 'Hold to talk (or hold Space)',
    });
    expect(problems).toEqual([]);
  });
});
