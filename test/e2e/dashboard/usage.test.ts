// The dashboard's Usage page (Config › Usage, /operator/usage) in Chromium against the real
// api: the bootstrap balance, the balance and the requests table after one /v1/tts request
// (compared with what the ledger recorded), "Load older" under a table of more than 50
// requests, and the notice and 403 other roles get.

import type { Locator, Page } from 'playwright-core';
import { v7 as uuidv7 } from 'uuid';
import { AgentStore } from '../../../src/agents/agent-store.ts';
import { CreditGrants } from '../../../src/billing/grants.ts';
import { LlmLedger } from '../../../src/billing/llm-ledger.ts';
import { MILLICREDITS_PER_CREDIT } from '../../../src/billing/pricing.ts';
import {
  addOperator,
  afterAll,
  beforeAll,
  describe,
  dialectSuite,
  expect,
  it,
  OPERATOR_PASSWORD,
  signInAs,
} from '../../fixtures/index.ts';
import { LLM_ENV } from '../../helpers/agents.ts';
import {
  type DashboardFixture,
  seedStarterAgent,
  signInThroughPage,
  startDashboard,
} from '../../helpers/dashboard.ts';

const MEMBER_EMAIL = 'viewer@acme.test';
const VOICE = 'voice_en0ITv6xOZPfMiT0sGIW';
const TEXT = 'The quarterly report is ready for review.';

/** Credits as the page shows them (dashboard/pages/usage.tsx `formatCredits`). */
const shown = (credits: number) => credits.toLocaleString('en-US', { maximumFractionDigits: 3 });
const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();

describe('dashboard: Usage', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let page: Page;
  let starterId: string;

  beforeAll(async ({ databases, apis }) => {
    fixture = await startDashboard(
      await databases.get('sqlite'),
      apis,
      {},
      {
        beforeStart: async (db, boot) => {
          await addOperator(db, boot, { email: MEMBER_EMAIL, role: 'member' });
          starterId = await seedStarterAgent(db, boot.workspaceId, LLM_ENV);
        },
      },
    );
    page = await fixture.newPage();
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
  });

  const balance = () => text(page.getByTestId('balance'));

  it('shows the bootstrap balance of 100,000 credits under Config › Usage', async () => {
    const { owner } = fixture.boot;
    await signInThroughPage(page, fixture.dashboardUrl, '/usage', owner.email, owner.password);
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/operator/usage');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await text(nav.locator('.sidebar-group', { hasText: 'Config' }))).toContain('Usage');
    await page.getByTestId('balance').waitFor();
    expect(await balance()).toBe('100,000');
    expect(await text(page.getByTestId('granted'))).toBe('100,000');
    expect(await text(page.getByTestId('charged'))).toBe('0');
    expect(await text(page.getByRole('table', { name: 'Recent grants' }))).toContain('+100,000');
    expect(await page.locator('tr[data-request-id]').count()).toBe(0);
  });

  it('after one /v1/tts request shows the balance minus its charge and the request first', async () => {
    const response = await fetch(`${fixture.server.devUrl}/v1/tts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fixture.boot.developmentKey.key}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ voice_id: VOICE, text: TEXT, output_format: 'opus_48000_64' }),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const requestId = response.headers.get('x-request-id') ?? '';
    expect(requestId).not.toBe('');

    // What the ledger recorded, read the way `awp credit show` reads it.
    const { handle } = fixture;
    let charge: number;
    // The balance left, computed in millicredits as the ledger keeps it.
    let left: number;
    const row = await handle.db
      .selectFrom('synthesis_requests')
      .select(['cost_millicredits', 'status'])
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('succeeded');
    charge = Number(row.cost_millicredits) / MILLICREDITS_PER_CREDIT;
    left =
      (100_000 * MILLICREDITS_PER_CREDIT - Number(row.cost_millicredits)) / MILLICREDITS_PER_CREDIT;
    expect(charge).toBeGreaterThan(0);
    const account = await new CreditGrants(handle.db).account(fixture.boot.workspaceId);
    expect(account.balanceCredits).toBe(left);
    expect(account.chargedCredits).toBe(charge);

    await page.reload();
    await page.getByTestId('balance').waitFor();
    expect(await balance()).toBe(shown(left));
    expect(await text(page.getByTestId('charged'))).toBe(shown(charge));

    const first = page.locator('tr[data-request-id]').first();
    expect(await first.getAttribute('data-request-id')).toBe(requestId);
    const cells = (await first.locator('td').allInnerTexts()).map((cell) => cell.trim());
    expect(cells[1]).toBe(requestId);
    expect(cells[2]).toBe(VOICE);
    expect(cells[3]).toBe(String(TEXT.length));
    expect(cells[4]).toBe(shown(charge));
    expect(cells[5]).toBe('succeeded');
    expect(cells[6]).toMatch(/^key:awp_/);

    // The API answers the same numbers.
    const { owner } = fixture.boot;
    const client = await signInAs(fixture.server.devUrl, owner.email, owner.password);
    const usage = await client.request('GET', '/usage');
    expect(usage.status).toBe(200);
    const body = usage.body as {
      credits: { balance: number; charged: number };
      requests: { request_id: string; characters: number; credits: number }[];
    };
    expect(body.credits.balance).toBe(left);
    expect(body.requests[0]).toMatchObject({
      request_id: requestId,
      characters: TEXT.length,
      credits: charge,
    });
  });

  it('lists a language-model call of a text conversation and counts it in Charged', async () => {
    const { handle } = fixture;
    const grants = new CreditGrants(handle.db);
    let before: Awaited<ReturnType<CreditGrants['account']>>;
    let after: Awaited<ReturnType<CreditGrants['account']>>;
    const requestId = uuidv7();
    before = await grants.account(fixture.boot.workspaceId);
    const snapshot = await new AgentStore(handle.db).activePublication(
      fixture.boot.workspaceId,
      'development',
      starterId,
    );
    if (!snapshot) throw new Error('the starter Agent is not published');
    // What POST /v1/agents/{id}/messages records around one model call: 1,200 tokens in
    // and 300 out at one millicredit a token, 1.5 credits.
    const ledger = new LlmLedger(handle.db, 'usage-test');
    await ledger.start({
      requestId,
      auditId: `aud_${requestId}`,
      workspaceId: fixture.boot.workspaceId,
      environment: 'development',
      apiKeyId: fixture.boot.developmentKey.id,
      source: 'messages',
      agentId: starterId,
      publicationId: snapshot.publication.id,
      conversationId: null,
      conversationIsNew: false,
      userMessageId: null,
      provider: 'openai',
      model: { name: 'gpt-4.1-mini', inputMillicreditsPer1M: 1e6, outputMillicreditsPer1M: 1e6 },
      reserveMillicredits: 3_000,
    });
    await ledger.succeed(requestId, { inputTokens: 1_200, outputTokens: 300 }, async () => ({
      assistantMessageId: null,
    }));
    after = await grants.account(fixture.boot.workspaceId);
    expect(after.chargedCredits).toBe(before.chargedCredits + 1.5);
    expect(after.balanceCredits).toBe(before.balanceCredits - 1.5);

    await page.reload();
    await page.getByTestId('balance').waitFor();
    expect(await balance()).toBe(shown(after.balanceCredits));
    expect(await text(page.getByTestId('charged'))).toBe(shown(after.chargedCredits));
    const row = page.locator(`tr[data-model-call-id="${requestId}"]`);
    const cells = (await row.locator('td').allInnerTexts()).map((cell) => cell.trim());
    expect(cells.slice(1, 7)).toEqual([
      'guide',
      'openai gpt-4.1-mini',
      '1,200',
      '300',
      '1.5',
      'succeeded',
    ]);
    expect(cells[7]).toBe(`key:${fixture.boot.developmentKey.prefix}`);
  });

  it('shows 50 requests, then the older ones with "Load older", which then disappears', async () => {
    // 55 older requests, one second apart, below the /v1/tts request above.
    const seeded: string[] = [];
    const { handle } = fixture;
    for (let i = 0; i < 55; i++) {
      const requestId = uuidv7();
      const at = new Date(Date.UTC(2024, 0, 1) + i * 1_000).toISOString();
      await handle.db
        .insertInto('synthesis_requests')
        .values({
          request_id: requestId,
          audit_id: `aud_${requestId}`,
          workspace_id: fixture.boot.workspaceId,
          environment: 'development',
          api_key_id: fixture.boot.developmentKey.id,
          transport: 'http',
          voice_id: VOICE,
          route: 'test',
          output_format: 'mp3_44100_128',
          chars_requested: 10,
          price_millicredits_per_1k_chars: 0,
          reserved_millicredits: 0,
          pass_through: 0,
          status: 'succeeded',
          instance_id: 'usage-test',
          created_at: at,
          finished_at: at,
        })
        .execute();
      seeded.unshift(requestId);
    }
    await page.reload();
    const rows = page.locator('tr[data-request-id]');
    const older = page.getByTestId('requests-older');
    await older.waitFor();
    expect(await older.textContent()).toBe('Load older');
    expect(await rows.count()).toBe(50);
    // One language-model call: that table has no "Load older".
    expect(await page.getByTestId('model-calls-older').count()).toBe(0);

    // A failed page shows the page's error notice and keeps the button.
    await page.route('**/operator/api/usage/requests?*', (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'invalid_request', detail: 'cursor names no request here.' }),
      }),
    );
    await older.click();
    await page.getByRole('alert').filter({ hasText: 'cursor names no request here.' }).waitFor();
    expect(await rows.count()).toBe(50);
    await page.unrouteAll();

    // The next page: the button is disabled while it loads, then the rest is appended.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/operator/api/usage/requests?*', async (route) => {
      await held;
      await route.continue();
    });
    await older.click();
    await expect.poll(() => older.isDisabled()).toBe(true);
    release();
    await older.waitFor({ state: 'detached' });
    await page.unrouteAll();
    expect(await rows.count()).toBe(56);
    expect(await page.getByRole('alert').count()).toBe(0);
    const ids = await rows.evaluateAll((found) =>
      found.map((row) => row.getAttribute('data-request-id')),
    );
    // The /v1/tts request first, then the seeded ones newest first, each once.
    expect(ids.slice(1)).toEqual(seeded);
  });

  it('tells a member who may see usage; the operator API answers 403', async () => {
    const other = await fixture.newPage();
    await signInThroughPage(other, fixture.dashboardUrl, '/usage', MEMBER_EMAIL, OPERATOR_PASSWORD);
    await other.getByText('Usage is for an organization Owner, Admin or Builder.').waitFor();
    expect(await other.getByTestId('balance').count()).toBe(0);
    expect(await other.locator('table').count()).toBe(0);
    const client = await signInAs(fixture.server.devUrl, MEMBER_EMAIL);
    const usage = await client.request('GET', '/usage');
    expect(usage.status).toBe(403);
    expect(usage.body).toMatchObject({ code: 'forbidden' });
    expect(fixture.problems).toEqual([]);
  });
});
