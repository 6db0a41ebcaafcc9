// The dashboard's Members page (Config › Members, /operator/members) in Chromium against
// the real api: the bootstrap owner listed, a teammate added with a one-time password that
// signs in, a role changed, a password reset, a removal confirmed, and a member's
// read-only view.

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
  signInAs,
} from '../../fixtures/index.ts';
import {
  type DashboardFixture,
  signInThroughPage,
  startDashboard,
} from '../../helpers/dashboard.ts';
import { OperatorClient } from '../../helpers/operator.ts';

const MEMBER_EMAIL = 'viewer@acme.test';
const NEW_MEMBER_PASSWORD = 'member-password-2';
const TEAMMATE = 'teammate@acme.test';
const GENERATED = /^[A-Za-z0-9_-]{24}$/;

describe('dashboard: Members', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let page: Page;

  beforeAll(async ({ databases, apis }) => {
    fixture = await startDashboard(
      await databases.get('sqlite'),
      apis,
      {},
      {
        beforeStart: (db, boot) => addOperator(db, boot, { email: MEMBER_EMAIL, role: 'member' }),
      },
    );
    page = await fixture.newPage();
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
  });

  const row = (target: Page, email: string) => target.locator(`tbody tr[data-email="${email}"]`);
  /** The members as the operator API lists them to the owner: email and role. */
  const listed = async () => {
    const { owner } = fixture.boot;
    const client = await signInAs(fixture.server.devUrl, owner.email, owner.password);
    const response = await client.request('GET', '/members');
    return (response.body as { members: { email: string; role: string }[] }).members.map(
      (member) => `${member.email} ${member.role}`,
    );
  };
  const shownPassword = async () => {
    const secret = page.getByTestId('member-password');
    await secret.waitFor();
    return ((await secret.textContent()) ?? '').trim();
  };

  it('lists the owner and the member under Config › Members', async () => {
    const { owner } = fixture.boot;
    await signInThroughPage(page, fixture.dashboardUrl, '/members', owner.email, owner.password);
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await expect.poll(() => page.title()).toBe('Members');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link', { name: 'Members' }).getAttribute('aria-current')).toBe(
      'page',
    );
    await row(page, MEMBER_EMAIL).waitFor();
    const emails = await page.locator('tbody tr td:first-child').allInnerTexts();
    expect(emails.map((email) => email.trim())).toEqual([`${owner.email} (you)`, MEMBER_EMAIL]);
    expect(await row(page, MEMBER_EMAIL).getByRole('combobox').inputValue()).toBe('member');
  });

  it('adds a teammate whose one-time password signs in', async () => {
    const form = page.getByRole('form', { name: 'Add member' });
    await form.getByLabel('Email').fill(TEAMMATE);
    await form.getByLabel('Role').selectOption('builder');
    await form.getByRole('button', { name: 'Add member' }).click();
    const password = await shownPassword();
    expect(password).toMatch(GENERATED);
    await row(page, TEAMMATE).waitFor();
    expect(await row(page, TEAMMATE).getByRole('combobox').inputValue()).toBe('builder');
    expect(await listed()).toEqual([
      `${fixture.boot.owner.email} owner`,
      `${MEMBER_EMAIL} member`,
      `${TEAMMATE} builder`,
    ]);
    const teammate = await signInAs(fixture.server.devUrl, TEAMMATE, password);
    expect((await teammate.request('GET', '/me')).body).toMatchObject({
      member: { email: TEAMMATE, role: 'builder' },
    });
  });

  it('changes the teammate’s role and resets their password', async () => {
    const before = await shownPassword();
    await page.getByRole('button', { name: 'Dismiss' }).first().click();
    await row(page, TEAMMATE).getByRole('combobox').selectOption('admin');
    await page.getByText(`${TEAMMATE} is now Admin.`).waitFor();
    expect(await listed()).toContain(`${TEAMMATE} admin`);

    await row(page, TEAMMATE).getByRole('button', { name: 'Reset password' }).click();
    await page.getByText(`New password for ${TEAMMATE}.`).waitFor();
    const after = await shownPassword();
    expect(after).toMatch(GENERATED);
    expect(after).not.toBe(before);
    expect((await new OperatorClient(fixture.server.devUrl).signIn(TEAMMATE, before)).status).toBe(
      401,
    );
    await signInAs(fixture.server.devUrl, TEAMMATE, after);
  });

  it('removes the teammate only once the removal is confirmed', async () => {
    const teammate = row(page, TEAMMATE);
    await teammate.getByRole('button', { name: 'Remove' }).click();
    await teammate.getByRole('button', { name: 'Cancel' }).click();
    expect(await listed()).toContain(`${TEAMMATE} admin`);
    await teammate.getByRole('button', { name: 'Remove' }).click();
    await teammate
      .getByText('Their sessions end and the API keys they created are revoked.')
      .waitFor();
    await teammate.getByRole('button', { name: `Confirm removal of ${TEAMMATE}` }).click();
    await page
      .getByText(`${TEAMMATE} was removed from the workspace; they had created no active API key.`)
      .waitFor();
    await teammate.waitFor({ state: 'detached' });
    expect(await listed()).toEqual([`${fixture.boot.owner.email} owner`, `${MEMBER_EMAIL} member`]);
  });

  it('lets a member change their own password from the sidebar', async () => {
    const own = await fixture.newPage();
    await signInThroughPage(own, fixture.dashboardUrl, '/members', MEMBER_EMAIL, OPERATOR_PASSWORD);
    await own
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Password' })
      .click();
    const form = own.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill(OPERATOR_PASSWORD);
    await form.getByLabel('New password', { exact: true }).fill(NEW_MEMBER_PASSWORD);
    await form.getByLabel('Repeat the new password').fill(NEW_MEMBER_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await own.getByText('Your password was changed.').waitFor();
    await signInAs(fixture.server.devUrl, MEMBER_EMAIL, NEW_MEMBER_PASSWORD);
    expect(
      (await new OperatorClient(fixture.server.devUrl).signIn(MEMBER_EMAIL, OPERATOR_PASSWORD))
        .status,
    ).toBe(401);
    await own.close();
  });

  it('shows a member the list without any control', async () => {
    const memberPage = await fixture.newPage();
    await signInThroughPage(
      memberPage,
      fixture.dashboardUrl,
      '/members',
      MEMBER_EMAIL,
      NEW_MEMBER_PASSWORD,
    );
    await memberPage.getByText('Adding and managing members requires an Owner or Admin.').waitFor();
    await row(memberPage, MEMBER_EMAIL).waitFor();
    expect(await memberPage.getByRole('form', { name: 'Add member' }).count()).toBe(0);
    expect(await memberPage.locator('tbody select, tbody button').count()).toBe(0);
    const cells = await row(memberPage, fixture.boot.owner.email).locator('td').allInnerTexts();
    expect(cells[1]?.trim()).toBe('Owner');
    expect(fixture.problems).toEqual([]);
  });
});
