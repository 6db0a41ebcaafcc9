// The dashboard's Webhooks page (Config › Webhooks, /operator/webhooks) in Chromium against
// the real api, whose webhook dispatcher delivers to a receiver on loopback: adding an
// endpoint and its signing secret shown once, the Enabled switch, editing, a test event's
// delivery row (delivered, with the payload the receiver got), Retry on a failed delivery,
// Load older, rotating and deleting behind a confirm dialog, and what a Builder sees.

import type { Page } from 'playwright-core';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { SecretBox } from '../../../src/secrets/secret-box.ts';
import { WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../src/webhooks/event-types.ts';
import { newDeliveryId, newEventId } from '../../../src/webhooks/outbox.ts';
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
import type { OperatorClient } from '../../helpers/operator.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const [FIRST_TYPE, ...OTHER_TYPES] = WEBHOOK_EVENT_TYPES;
const SECOND_TYPE = OTHER_TYPES[0];

interface ListedEndpoint {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
}

describe('dashboard: Webhooks', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let receiver: WebhookReceiver;
  let URL_ONE = '';
  let URL_TWO = '';
  let handle: DatabaseHandle;
  let page: Page;
  let api: OperatorClient;
  /** The secret the service signs an endpoint's deliveries with. */
  let signingSecret: (endpointId: string) => Promise<string | undefined>;
  let endpointId = '';

  beforeAll(async ({ databases, apis }) => {
    receiver = await startWebhookReceiver();
    URL_ONE = receiver.url('/awp/one');
    URL_TWO = receiver.url('/awp/two');
    fixture = await startDashboard(
      await databases.get('sqlite'),
      apis,
      // The receiver is on loopback; the dispatcher looks for due deliveries every 200 ms.
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '200' },
      {
        beforeStart: (db, boot) =>
          addOperator(db, boot, { email: 'builder@acme.test', role: 'builder' }),
      },
    );
    handle = fixture.handle;
    const kept = new WebhookEndpoints(
      handle.db,
      SecretBox.fromConfig({ dataDir: fixture.database.dataDir }),
    );
    signingSecret = async (id) => (await kept.target(id))?.secrets[0];
    const { owner } = fixture.boot;
    api = await signInAs(fixture.server.devUrl, owner.email, owner.password);
    page = await fixture.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(fixture.dashboardUrl).origin,
    });
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
    await receiver?.close();
  });

  const listed = async () => {
    const response = await api.request('GET', '/webhooks');
    expect(response.status).toBe(200);
    return (response.body as { webhooks: ListedEndpoint[] }).webhooks;
  };
  const endpointRow = () => page.locator('tbody tr[data-webhook-id]');
  const deliveryRows = () => page.locator('tbody tr[data-delivery-id]');
  /** The first delivery's state, Event to Last attempt, after reading the list again. */
  const firstDelivery = async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    return (await deliveryRows().first().locator('td').allTextContents()).slice(0, 4);
  };
  const hitsOf = (path: string) => receiver.hits.filter((hit) => hit.path === path);

  it('opens Webhooks under Config › Integrations, with no endpoints yet', async () => {
    const { owner } = fixture.boot;
    await signInThroughPage(page, fixture.dashboardUrl, '/webhooks', owner.email, owner.password);
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await expect.poll(() => page.title()).toBe('Webhooks');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    const config = await nav
      .locator('.sidebar-group', { hasText: 'Config' })
      .getByRole('link')
      .allTextContents();
    expect(config.slice(0, 2)).toEqual(['Integrations', 'Webhooks']);
    expect(await nav.getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current')).toBe(
      'page',
    );
    await page.getByText('No endpoints yet.').waitFor();
    expect(await page.getByText('development environment').count()).toBe(1);
  });

  it('adds an endpoint and shows its signing secret once, with Copy', async () => {
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'Add endpoint' });
    const checkboxes = form.getByRole('checkbox');
    expect(await form.locator('label.checkbox').allInnerTexts()).toEqual([...WEBHOOK_EVENT_TYPES]);
    await form.getByLabel('Endpoint URL').fill(URL_ONE);
    await form.getByLabel('Description').fill('Order desk');
    const submit = form.getByRole('button', { name: 'Create endpoint' });
    expect(await submit.isDisabled()).toBe(true);
    expect(await checkboxes.count()).toBe(WEBHOOK_EVENT_TYPES.length);
    await form.getByLabel(FIRST_TYPE, { exact: true }).check();
    await submit.click();

    const banner = page.getByTestId('webhook-secret');
    await banner.waitFor();
    const secret = (await banner.textContent())?.trim() ?? '';
    expect(secret).toMatch(SECRET);
    const notice = page.locator('.notice', { has: banner });
    expect(await notice.textContent()).toContain(
      'Copy the signing secret now: it will not be shown again.',
    );
    const [endpoint] = await listed();
    expect(endpoint).toMatchObject({
      url: URL_ONE,
      description: 'Order desk',
      events: [FIRST_TYPE],
      enabled: true,
    });
    endpointId = endpoint?.id ?? '';
    expect(await signingSecret(endpointId)).toBe(secret);

    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const cells = await endpointRow().first().locator('td').allTextContents();
    expect(cells.slice(0, 3)).toEqual([`${URL_ONE}Order desk`, FIRST_TYPE, 'Enabled']);
    expect(cells[3]).not.toBe('—');
    expect(await page.getByRole('form', { name: 'Add endpoint' }).count()).toBe(0);

    // Shown once: after a reload the page no longer holds the secret.
    await page.reload();
    await endpointRow().first().waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
  });

  it('turns an endpoint off and on with its Enabled switch', async () => {
    const toggle = page.getByRole('switch', { name: `Enabled: ${URL_ONE}` });
    await toggle.click();
    await endpointRow().first().getByText('Disabled').waitFor();
    expect(await toggle.isChecked()).toBe(false);
    expect((await listed())[0]?.enabled).toBe(false);
    await toggle.click();
    await endpointRow().first().getByText('Enabled', { exact: true }).waitFor();
    expect(await toggle.isChecked()).toBe(true);
    expect((await listed())[0]?.enabled).toBe(true);
  });

  it('edits the URL, description and events; the secret stays', async () => {
    const before = await signingSecret(endpointId);
    await endpointRow().first().getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit endpoint' });
    expect(await form.getByLabel('Endpoint URL').inputValue()).toBe(URL_ONE);
    expect(await form.getByLabel(FIRST_TYPE, { exact: true }).isChecked()).toBe(true);
    await form.getByLabel('Endpoint URL').fill(URL_TWO);
    await form.getByLabel('Description').fill('Fulfilment');
    for (const type of OTHER_TYPES) await form.getByLabel(type, { exact: true }).check();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await endpointRow().first().getByText(URL_TWO).waitFor();
    expect(
      await endpointRow().first().locator('td').nth(1).locator('code').allTextContents(),
    ).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect((await listed())[0]).toMatchObject({
      url: URL_TWO,
      description: 'Fulfilment',
      events: [...WEBHOOK_EVENT_TYPES],
    });
    expect(await signingSecret(endpointId)).toBe(before);
  });

  it('sends a test event: its row appears, then shows it delivered with the payload', async () => {
    await endpointRow().first().getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(`A test event was queued for ${URL_TWO}.`).waitFor();
    const row = deliveryRows().first();
    await row.waitFor();
    expect(await deliveryRows().count()).toBe(1);
    expect(await row.locator('td').first().textContent()).toBe('webhook.test');
    await row.getByRole('button', { name: 'View payload' }).click();
    const payload = JSON.parse((await page.getByTestId('webhook-payload').textContent()) ?? '') as {
      id: string;
    };
    expect(payload).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'webhook.test',
      timestamp: expect.any(String),
      data: { webhook_id: endpointId, environment: 'development' },
    });
    await row.getByRole('button', { name: 'Hide payload' }).click();
    expect(await page.getByTestId('webhook-payload').count()).toBe(0);

    await expect
      .poll(firstDelivery, { timeout: 15_000 })
      .toEqual(['webhook.test', 'delivered', '1', 'HTTP 200']);
    const [hit] = hitsOf('/awp/two');
    expect(hitsOf('/awp/two')).toHaveLength(1);
    expect(hit?.headers['webhook-id']).toBe(payload.id);
    expect(JSON.parse(hit?.body.toString('utf8') ?? '')).toEqual(payload);
  });

  it('shows Retry on a failed delivery; Retry makes it pending and sends it again', async () => {
    const row = deliveryRows().first();
    const deliveryId = (await row.getAttribute('data-delivery-id')) as string;
    await handle.db
      .updateTable('webhook_deliveries')
      .set({
        state: 'failed',
        attempts: 8,
        next_attempt_at: null,
        last_attempt_at: new Date().toISOString(),
        last_status: 503,
        last_error: null,
        locked_until: null,
      })
      .where('id', '=', deliveryId)
      .execute();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await row.locator('.badge-failed').waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(1, 4)).toEqual(['failed', '8', 'HTTP 503']);
    await row.getByRole('button', { name: 'Retry' }).click();
    await row.locator('.badge-pending').waitFor();
    expect(await row.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(await row.locator('td').nth(2).textContent()).toBe('0');
    // The same event again: the receiver sees its id a second time.
    await expect.poll(() => hitsOf('/awp/two').length, { timeout: 15_000 }).toBe(2);
    const [first, second] = hitsOf('/awp/two');
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    await expect
      .poll(firstDelivery, { timeout: 15_000 })
      .toEqual(['webhook.test', 'delivered', '1', 'HTTP 200']);
  });

  it('lists 20 deliveries at first and the rest with Load older', async () => {
    const base = Date.parse('2025-01-01T00:00:00.000Z');
    for (let i = 0; i < 24; i++) {
      const at = new Date(base + i * 1_000).toISOString();
      const eventId = newEventId();
      await handle.db
        .insertInto('webhook_deliveries')
        .values({
          id: newDeliveryId(),
          endpoint_id: endpointId,
          workspace_id: fixture.boot.workspaceId,
          event_id: eventId,
          event_type: SECOND_TYPE,
          payload: JSON.stringify({ id: eventId, type: SECOND_TYPE, timestamp: at, data: {} }),
          state: 'delivered',
          attempts: 1,
          last_attempt_at: at,
          last_status: 204,
          delivered_at: at,
          created_at: at,
        })
        .execute();
    }
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => deliveryRows().count()).toBe(20);
    // The test event is the newest.
    expect(await deliveryRows().first().locator('td').first().textContent()).toBe('webhook.test');
    await page.getByRole('button', { name: 'Load older' }).click();
    await expect.poll(() => deliveryRows().count()).toBe(25);
    expect(await page.getByRole('button', { name: 'Load older' }).count()).toBe(0);
    const last = await deliveryRows().last().locator('td').allTextContents();
    expect(last.slice(0, 4)).toEqual([SECOND_TYPE, 'delivered', '1', 'HTTP 204']);
  });

  it('rotates the secret after confirming and shows the new one once', async () => {
    const before = await signingSecret(endpointId);
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const rotate = endpointRow().first().getByRole('button', { name: 'Rotate secret' });
    await rotate.click();
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toContain(`Rotate the signing secret of ${URL_TWO}?`);
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await signingSecret(endpointId)).toBe(before);

    page.once('dialog', (dialog) => void dialog.accept());
    await rotate.click();
    const banner = page.getByTestId('webhook-secret');
    await banner.waitFor();
    const secret = (await banner.textContent())?.trim() ?? '';
    expect(secret).toMatch(SECRET);
    expect(secret).not.toBe(before);
    expect(await signingSecret(endpointId)).toBe(secret);
    expect(await page.locator('.notice', { has: banner }).textContent()).toContain(
      `New signing secret for ${URL_TWO}.`,
    );
    await page.reload();
    await endpointRow().first().waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it('deletes an endpoint after confirming; cancelling keeps it', async () => {
    const remove = endpointRow().first().getByRole('button', { name: 'Delete' });
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await remove.click();
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toContain(`Delete the endpoint ${URL_TWO}?`);
    expect(await endpointRow().count()).toBe(1);
    expect(await listed()).toHaveLength(1);

    page.once('dialog', (dialog) => void dialog.accept());
    await remove.click();
    await page.getByText('No endpoints yet.').waitFor();
    expect(await endpointRow().count()).toBe(0);
    expect(await listed()).toEqual([]);
    expect(fixture.problems).toEqual([]);
  });

  it('tells a Builder who manages webhooks, without the management buttons', async () => {
    await api.request('POST', '/webhooks', { url: URL_ONE, events: [FIRST_TYPE] });
    const builder = await fixture.newPage();
    await signInThroughPage(
      builder,
      fixture.dashboardUrl,
      '/webhooks',
      'builder@acme.test',
      OPERATOR_PASSWORD,
    );
    await builder.getByText('Webhooks are managed by an organization Owner or Admin.').waitFor();
    expect(await builder.locator('table').count()).toBe(0);
    for (const name of ['Add endpoint', 'Edit', 'Send test event', 'Rotate secret', 'Delete']) {
      expect(await builder.getByRole('button', { name }).count(), name).toBe(0);
    }
    expect(await builder.getByText(URL_ONE).count()).toBe(0);
    expect(fixture.problems).toEqual([]);
  });
});
