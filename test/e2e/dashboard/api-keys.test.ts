// The dashboard's API keys page (Config › Integrations, /operator/keys) in Chromium against
// the real api: sign-in, the key shown once in a banner and accepted by /v1, the Issued keys
// table with each key's creator, Revoke taking effect at once, a Builder's key refused what
// a Builder may not do and revoked with its creator's removal, and the message other roles see.

import type { Page } from 'playwright-core';
import {
  addOperator,
  afterAll,
  beforeAll,
  describe,
  dialectSuite,
  expect,
  it,
  OPERATOR_PASSWORD,
} from '../../fixtures/index.ts';
import {
  type DashboardFixture,
  signInThroughPage,
  startDashboard,
} from '../../helpers/dashboard.ts';

const BUILDER = 'builder@acme.test';

describe('dashboard: API keys', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let page: Page;

  beforeAll(async ({ databases, apis }) => {
    // Last use is written in batches (KEY_LAST_USED_FLUSH_MS, 30 s by default).
    fixture = await startDashboard(
      await databases.get('sqlite'),
      apis,
      { KEY_LAST_USED_FLUSH_MS: '300' },
      {
        beforeStart: async (db, boot) => {
          await addOperator(db, boot, { email: 'viewer@acme.test', role: 'member' });
          await addOperator(db, boot, { email: BUILDER, role: 'builder' });
        },
      },
    );
    page = await fixture.newPage();
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
  });

  const statusOf = async (key: string, path: string) =>
    (
      await fetch(`${fixture.server.devUrl}${path}`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).status;
  const voicesStatus = (key: string) => statusOf(key, '/v1/voices');

  it('asks for a sign-in, then opens the API keys page under Config › Integrations', async () => {
    const { owner } = fixture.boot;
    await signInThroughPage(page, fixture.dashboardUrl, '/keys', owner.email, owner.password);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    // The title is set by an effect after the heading renders.
    await expect.poll(() => page.title()).toBe('API keys');
    expect(new URL(page.url()).pathname).toBe('/operator/keys');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.locator('.sidebar-group', { hasText: 'Config' }).innerText()).toContain(
      'Integrations',
    );
    expect(await nav.getByRole('link', { name: 'Integrations' }).getAttribute('aria-current')).toBe(
      'page',
    );
    const rows = page.locator('tbody tr[data-key-id]');
    await rows.first().waitFor();
    const labels = await rows.locator('td:first-child').allInnerTexts();
    expect(labels.sort()).toEqual(['bootstrap development', 'bootstrap production']);
    // The first start's keys have no member behind them.
    expect(await page.getByTestId('key-creator').allInnerTexts()).toEqual([
      'Operator tool (full access)',
      'Operator tool (full access)',
    ]);
  });

  it('creates a key shown once in a banner; /v1 accepts it; the table lists its prefix', async () => {
    const createButton = page.getByRole('button', { name: 'Create key' });
    expect(await createButton.isDisabled()).toBe(true);
    await page.getByLabel('Label').fill('checkout service');
    await createButton.click();
    const banner = page.getByTestId('new-key');
    await banner.waitFor();
    const key = (await banner.innerText()).trim();
    expect(key).toMatch(/^awp_[0-9A-Za-z]{40}$/);
    expect(await voicesStatus(key)).toBe(200);

    const row = page.locator('tbody tr', { hasText: 'checkout service' });
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(key.startsWith(cells[1] ?? '-')).toBe(true);
    expect(cells[2]).toBe('development');
    expect(cells[3]).toBe('active');
    expect(cells[5]).toBe(`${fixture.boot.owner.email} (Owner)`);
    expect(await page.content()).toContain(key);

    // Shown once: after a reload the page no longer holds the key.
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(key);
    expect(await page.getByTestId('new-key').count()).toBe(0);

    // Last used is filled in once the key has been used.
    await expect
      .poll(
        async () => {
          await page.reload();
          await row.waitFor();
          return (await row.locator('td').nth(6).innerText()).trim();
        },
        // Each look reloads the page: the suite's default bound, not a few looks' worth.
      )
      .not.toBe('Never');
  });

  it('revokes a key: the row says revoked and /v1 refuses the key at once', async () => {
    await page.getByLabel('Label').fill('short-lived');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').innerText()).trim();
    expect(await voicesStatus(key)).toBe(200);
    const row = page.locator('tbody tr', { hasText: 'short-lived' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.locator('.badge-revoked').waitFor();
    expect(await row.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    // Every api process refuses a revoked key within one second (README, Operator API).
    await expect.poll(() => voicesStatus(key), { timeout: 2_000, interval: 100 }).toBe(401);
  });

  it('shows a Builder’s key as theirs, limits it to a Builder’s powers, and revokes it with them', async () => {
    const builderPage = await fixture.newPage();
    await signInThroughPage(builderPage, fixture.dashboardUrl, '/keys', BUILDER, OPERATOR_PASSWORD);
    await builderPage.getByLabel('Label').fill('builder service');
    await builderPage.getByRole('button', { name: 'Create key' }).click();
    const key = (await builderPage.getByTestId('new-key').innerText()).trim();
    const row = builderPage.locator('tbody tr', { hasText: 'builder service' });
    await row.waitFor();
    expect((await row.getByTestId('key-creator').innerText()).trim()).toBe(`${BUILDER} (Builder)`);
    expect(await voicesStatus(key)).toBe(200);
    // Webhook endpoints are for those who manage the workspace, as on the dashboard.
    expect(await statusOf(key, '/v1/webhooks')).toBe(403);

    await page.goto(`${fixture.dashboardUrl}/members`);
    const member = page.locator('tbody tr', { hasText: BUILDER });
    await member.getByRole('button', { name: 'Remove' }).click();
    expect((await member.getByTestId('removal-warning').innerText()).trim()).toBe(
      'Their sessions end and the API keys they created are revoked.',
    );
    await member.getByRole('button', { name: `Confirm removal of ${BUILDER}` }).click();
    await page
      .getByText(`${BUILDER} was removed from the workspace; 1 API key they created was revoked.`)
      .waitFor();
    expect(await voicesStatus(key)).toBe(401);
    await page.goto(`${fixture.dashboardUrl}/keys`);
    const revoked = page.locator('tbody tr', { hasText: 'builder service' });
    await revoked.locator('.badge-revoked').waitFor();
    expect((await revoked.getByTestId('key-creator').innerText()).trim()).toBe(
      `${BUILDER} (Builder)`,
    );
    await builderPage.close();
  });

  it('tells a member without a key-managing role who may manage keys', async () => {
    const other = await fixture.newPage();
    await signInThroughPage(
      other,
      fixture.dashboardUrl,
      '/keys',
      'viewer@acme.test',
      OPERATOR_PASSWORD,
    );
    await other
      .getByText('Key management requires an organization Owner or Admin (or Builder).')
      .waitFor();
    expect(await other.locator('table').count()).toBe(0);
    expect(await other.getByRole('button', { name: 'Create key' }).count()).toBe(0);
  });

  it('signs out, and a wrong password gets the API’s message', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByLabel('Email').fill(fixture.boot.owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/email or password/i);
  });

  it('serves its pages with a strict CSP; unknown paths are 404 JSON; no page errors', async () => {
    const response = await fetch(`${fixture.dashboardUrl}/voices/some-id`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const missing = await fetch(`${fixture.dashboardUrl}/no-such-page`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('not_found');
    const asset = await fetch(`${fixture.dashboardUrl}/assets/..%2Fsecrets.js`);
    expect(asset.status).toBe(404);
    expect(fixture.problems).toEqual([]);
  });
});
