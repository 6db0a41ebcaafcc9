// The Agent page's Knowledge and Memory sections (/operator/agents/:id) in Chromium against
// the real api: an Owner adds a document by typing and one from a Markdown file, views,
// filters, pages, replaces and deletes them (each change read back through /v1), sees the
// published Agent's documents switch; adds facts about an end user and forgets one and
// then all; a Member sees the same but has no controls and the operator API refuses its
// writes.

import type { Page } from 'playwright-core';
import { MemoryStore } from '../../../src/agents/capabilities/memory/memory-store.ts';
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
import { type ApiClient, apiClient, LLM_ENV } from '../../helpers/agents.ts';
import {
  type DashboardFixture,
  seedStarterAgent,
  signInThroughPage,
  startDashboard,
} from '../../helpers/dashboard.ts';

const MEMBER_EMAIL = 'viewer@acme.test';
const END_USER = '0f8fad5b-d9cb-469f-a165-70867728950e';
const NOTES = '# Order 4521\n\nGift wrapping with a blue ribbon.\n';

describe('dashboard: an Agent’s knowledge and memory', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let page: Page;
  let agentId: string;
  let v1: ApiClient;

  beforeAll(async ({ databases, apis }) => {
    fixture = await startDashboard(await databases.get('sqlite'), apis, LLM_ENV, {
      beforeStart: async (db, boot) => {
        await addOperator(db, boot, { email: MEMBER_EMAIL, role: 'member' });
        agentId = await seedStarterAgent(db, boot.workspaceId, LLM_ENV);
      },
    });
    v1 = apiClient(fixture.server.devUrl, fixture.boot.developmentKey.key);
    page = await fixture.newPage();
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
  });

  const knowledge = (target: Page) => target.getByRole('region', { name: 'Knowledge' });
  const memory = (target: Page) => target.getByRole('region', { name: 'Memory' });
  const documentRow = (target: Page, title: string) =>
    knowledge(target)
      .getByRole('table', { name: 'Documents' })
      .locator('tbody tr', {
        has: target.getByRole('button', { name: title, exact: true }),
      });
  const v1Documents = async () =>
    (await v1('GET', `/v1/agents/${agentId}/documents?limit=100`)).body.documents as {
      id: string;
      title: string;
      end_user_id: string | null;
      content_type: string;
    }[];

  it('adds a typed document and one read from a Markdown file', async () => {
    const { owner } = fixture.boot;
    await signInThroughPage(
      page,
      fixture.dashboardUrl,
      `/agents/${agentId}`,
      owner.email,
      owner.password,
    );
    const section = knowledge(page);
    await section.getByText('No documents yet.').waitFor();
    expect(await section.getByTestId('documents-status').textContent()).toBe(
      'Documents off The published Agent does not search these documents.',
    );
    expect(await section.getByTestId('document-limits').textContent()).toBe(
      'At most 1,000 shared documents and 100 of each end user; a title of at most 200 characters, a text of at most 200,000.',
    );

    await section.getByRole('button', { name: 'Add document' }).click();
    const form = page.getByRole('form', { name: 'Add document' });
    await form.getByLabel('Title').fill('Refund policy');
    await form.getByLabel('Text', { exact: true }).fill('Refunds are paid within 5 business days.');
    expect(await form.locator('.knowledge-count').textContent()).toBe('40 of 200,000 characters');
    await form.getByRole('button', { name: 'Add document' }).click();
    const refund = documentRow(page, 'Refund policy');
    await refund.waitFor();
    expect(await refund.locator('td').allInnerTexts()).toEqual([
      'Refund policy',
      'Shared',
      'Plain text',
      '40',
      expect.any(String),
    ]);

    await section.getByRole('button', { name: 'Add document' }).click();
    await form.getByLabel('Text from a file (.txt or .md)').setInputFiles({
      name: 'order-notes.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(NOTES),
    });
    await expect.poll(() => form.getByLabel('Text', { exact: true }).inputValue()).toBe(NOTES);
    expect(await form.getByLabel('Title').inputValue()).toBe('order-notes');
    expect(await form.getByLabel('Format').inputValue()).toBe('text/markdown');
    await form.getByLabel('Searched in').selectOption('end_user');
    const add = form.getByRole('button', { name: 'Add document' });
    expect(await add.isDisabled()).toBe(true);
    await form.getByLabel('End user id').fill(END_USER);
    await add.click();
    const notes = documentRow(page, 'order-notes');
    await notes.waitFor();
    expect(await notes.locator('td').allInnerTexts()).toEqual([
      'order-notes',
      END_USER,
      'Markdown',
      String(NOTES.length),
      expect.any(String),
    ]);

    const stored = await v1Documents();
    expect(stored.map((d) => [d.title, d.end_user_id, d.content_type])).toEqual([
      ['order-notes', END_USER, 'text/markdown'],
      ['Refund policy', null, 'text/plain'],
    ]);
    const notesId = stored[0]?.id;
    expect((await v1('GET', `/v1/agents/${agentId}/documents/${notesId}`)).body.text).toBe(NOTES);
  });

  it('filters shared and one end user’s documents, and pages with Load older', async () => {
    const section = knowledge(page);
    const titles = () =>
      section
        .getByRole('table', { name: 'Documents' })
        .locator('tbody tr[data-document-id] td:first-child')
        .allInnerTexts();
    await section.getByLabel('Show').selectOption('shared');
    await expect.poll(titles).toEqual(['Refund policy']);
    await section.getByLabel('Show').selectOption('end_user');
    await section.getByLabel('End user id').fill(END_USER);
    await section.getByLabel('End user id').press('Enter');
    await expect.poll(titles).toEqual(['order-notes']);
    await section.getByLabel('Show').selectOption('all');
    await expect.poll(titles).toEqual(['order-notes', 'Refund policy']);

    for (let n = 1; n <= 20; n++) {
      const added = await v1('POST', `/v1/agents/${agentId}/documents`, {
        title: `Handbook ${String(n).padStart(2, '0')}`,
        text: `Chapter ${n}.`,
      });
      expect(added.status).toBe(201);
    }
    await page.reload();
    await expect.poll(async () => (await titles()).length).toBe(20);
    expect((await titles())[0]).toBe('Handbook 20');
    await section.getByRole('button', { name: 'Load older' }).click();
    await expect.poll(async () => (await titles()).length).toBe(22);
    expect((await titles()).slice(-2)).toEqual(['order-notes', 'Refund policy']);
    expect(await section.getByRole('button', { name: 'Load older' }).count()).toBe(0);
  });

  it('views a document’s text, replaces it and deletes it after a confirmation', async () => {
    const section = knowledge(page);
    await section.getByRole('button', { name: 'Refund policy', exact: true }).click();
    const viewer = page.getByRole('article', { name: 'Document' });
    await viewer.getByRole('heading', { name: 'Refund policy' }).waitFor();
    expect(await viewer.getByTestId('document-text').textContent()).toBe(
      'Refunds are paid within 5 business days.',
    );

    await viewer.getByRole('button', { name: 'Replace' }).click();
    const form = viewer.getByRole('form', { name: 'Replace document' });
    expect(await form.getByLabel('Title').inputValue()).toBe('Refund policy');
    await form.getByLabel('Text', { exact: true }).fill('Refunds are paid within a week.');
    await form.getByRole('button', { name: 'Save document' }).click();
    await page.getByText('“Refund policy” was replaced and reindexed.').waitFor();
    await expect
      .poll(() => viewer.getByTestId('document-text').textContent())
      .toBe('Refunds are paid within a week.');
    const id = (await v1Documents()).find((d) => d.title === 'Refund policy')?.id;
    expect((await v1('GET', `/v1/agents/${agentId}/documents/${id}`)).body.text).toBe(
      'Refunds are paid within a week.',
    );

    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await viewer.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('“Refund policy” was deleted.').waitFor();
    expect(dialogs).toEqual([
      'Delete “Refund policy”? Conversations stop finding it at once; it cannot be recovered.',
    ]);
    await documentRow(page, 'Refund policy').waitFor({ state: 'detached' });
    expect((await v1('GET', `/v1/agents/${agentId}/documents/${id}`)).status).toBe(404);
  });

  it('shows the published Agent’s documents switch', async () => {
    const client = await signInAs(
      fixture.server.devUrl,
      fixture.boot.owner.email,
      fixture.boot.owner.password,
    );
    expect(
      (await client.request('PATCH', `/agents/${agentId}`, { documents_enabled: true })).status,
    ).toBe(200);
    await page.reload();
    const status = knowledge(page).getByTestId('documents-status');
    await expect
      .poll(() => status.textContent())
      .toBe(
        'Documents off The published Agent does not search these documents. The draft turns documents on; publish to apply.',
      );
    expect((await client.request('POST', `/agents/${agentId}/publish`)).status).toBe(200);
    await page.reload();
    await expect
      .poll(() => status.textContent())
      .toBe(
        'Documents on The published Agent searches its shared documents and the end user’s own in each conversation.',
      );
  });

  it('adds facts about an end user, forgets one and then everything', async () => {
    const section = memory(page);
    await section.getByLabel('End user id').fill(END_USER.toUpperCase());
    await section.getByRole('button', { name: 'Look up' }).click();
    await section.getByText('The Agent remembers nothing about this end user.').waitFor();
    // What the Agent's remember tool saved in a conversation meanwhile.
    const { handle } = fixture;
    await new MemoryStore(handle.db).save(
      {
        workspaceId: fixture.boot.workspaceId,
        environment: 'development',
        agentId,
        endUserId: END_USER,
      },
      'Prefers to be called Ada.',
      'agent',
    );
    await section.getByLabel('Fact', { exact: true }).fill('Is vegetarian.');
    await section.getByRole('button', { name: 'Add fact' }).click();
    const rows = section
      .getByRole('table', { name: 'Memories' })
      .locator('tbody tr[data-memory-id]');
    await expect.poll(() => rows.count()).toBe(2);
    const cells = async () =>
      (await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)),
      )) as string[][];
    expect(await cells()).toEqual([
      ['Prefers to be called Ada.', 'Agent'],
      ['Is vegetarian.', 'API'],
    ]);
    const listed = async () =>
      (
        (await v1('GET', `/v1/agents/${agentId}/memories?end_user_id=${END_USER}`)).body
          .memories as { text: string }[]
      ).map((m) => m.text);
    expect(await listed()).toEqual(['Prefers to be called Ada.', 'Is vegetarian.']);

    await rows.first().getByRole('button', { name: 'Forget' }).click();
    await section.getByText('Forgot “Prefers to be called Ada.”.').waitFor();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await listed()).toEqual(['Is vegetarian.']);

    await section.getByLabel('Fact', { exact: true }).fill('Lives in Lyon.');
    await section.getByRole('button', { name: 'Add fact' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await section.getByRole('button', { name: 'Forget all' }).click();
    await section.getByText('Forgot 2 facts.').waitFor();
    expect(dialogs).toEqual([
      `Forget everything the Agent remembers about ${END_USER}? This cannot be undone.`,
    ]);
    await section.getByText('The Agent remembers nothing about this end user.').waitFor();
    expect(await listed()).toEqual([]);
  });

  it('shows a Member the shared documents only, no memories, no controls; the API refuses the rest', async () => {
    await v1('POST', `/v1/agents/${agentId}/memories`, {
      end_user_id: END_USER,
      text: 'Likes jazz.',
    });
    const other = await fixture.newPage();
    await signInThroughPage(
      other,
      fixture.dashboardUrl,
      `/agents/${agentId}`,
      MEMBER_EMAIL,
      OPERATOR_PASSWORD,
    );
    const section = knowledge(other);
    await documentRow(other, 'Handbook 20').waitFor();
    expect(await section.getByRole('button', { name: 'Add document' }).count()).toBe(0);
    // End users' own documents and memories follow the transcript rule: not for Members.
    expect((await section.getByTestId('shared-only').textContent())?.trim()).toBe(
      'Shared documents only: end users’ own documents are shown to Owners, Admins and Builders.',
    );
    expect(await section.getByLabel('Show').count()).toBe(0);
    // The twenty shared handbooks, and nothing older: the end user's order notes stay hidden.
    expect(
      await section.getByRole('table', { name: 'Documents' }).locator('tbody tr').count(),
    ).toBe(20);
    expect(await section.getByRole('button', { name: 'Load older' }).count()).toBe(0);
    expect(await documentRow(other, 'order-notes').count()).toBe(0);
    await section.getByRole('button', { name: 'Handbook 20', exact: true }).click();
    const viewer = other.getByRole('article', { name: 'Document' });
    await viewer.getByTestId('document-text').waitFor();
    expect(await viewer.getByRole('button').allInnerTexts()).toEqual(['Close']);
    expect(await memory(other).count()).toBe(0);

    const client = await signInAs(fixture.server.devUrl, MEMBER_EMAIL);
    const notesId = (await v1Documents()).find((d) => d.title === 'order-notes')?.id;
    const memoryId = (await v1('GET', `/v1/agents/${agentId}/memories?end_user_id=${END_USER}`))
      .body.memories[0].id as string;
    const base = `/agents/${agentId}`;
    for (const [method, path, payload] of [
      ['GET', `${base}/documents/${notesId}`, undefined],
      ['GET', `${base}/documents?end_user_id=${END_USER}`, undefined],
      ['GET', `${base}/memories?end_user_id=${END_USER}`, undefined],
      ['POST', `${base}/documents`, { title: 'Mine', text: 'No.' }],
      ['PUT', `${base}/documents/${notesId}`, { title: 'Mine', text: 'No.' }],
      ['DELETE', `${base}/documents/${notesId}`, undefined],
      ['POST', `${base}/memories`, { end_user_id: END_USER, text: 'No.' }],
      ['DELETE', `${base}/memories/${memoryId}`, undefined],
      ['DELETE', `${base}/memories?end_user_id=${END_USER}`, undefined],
    ] as const) {
      const response = await client.request(method, path, payload);
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
    }
    expect((await v1Documents()).find((d) => d.id === notesId)?.title).toBe('order-notes');
    expect(fixture.problems).toEqual([]);
  });
});
