// The dashboard's Agents page (/operator/agents) and Agent page (/operator/agents/:id) in
// Chromium against the real api: the starter Agent listed as published, an Agent created
// through the form with a built-in voice and published (then served by GET /v1/agents),
// edited on its page (one PATCH: one new draft revision, the card's untouched fields kept)
// and published again, and a member's read-only views with the operator API refusing its
// writes.

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
import { LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import {
  type DashboardFixture,
  seedStarterAgent,
  signInThroughPage,
  startDashboard,
} from '../../helpers/dashboard.ts';

const MEMBER_EMAIL = 'viewer@acme.test';

/** A card with every field set, some of which the Agent page does not show. */
const RICH_CARD = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: {
    name: 'Concierge',
    description: 'A calm hotel concierge.',
    personality: 'Warm and precise.',
    scenario: 'The lobby of a small hotel.',
    first_mes: 'Welcome to the hotel.',
    mes_example: '<START>\n{{user}}: Hi\n{{char}}: Hello, how may I help?',
    system_prompt: 'Answer in one short sentence.',
    post_history_instructions: 'Stay in character.',
    creator_notes: 'Greets visitors.',
    creator: 'Front office',
    character_version: '2.1',
    // The second greeting spans two lines: the page keeps this list as stored.
    alternate_greetings: ['Good evening.', 'Hello again.\nShall I call a taxi?'],
    tags: ['hotel', 'front desk'],
    group_only_greetings: ['Welcome, everyone.'],
    extensions: { depth_prompt: { prompt: 'Be kind.', depth: 4 } },
  },
};

/** What `GET /v1/agents/{id}` answers, in the fields these tests read. */
interface V1Agent {
  id: string;
  character_card: typeof RICH_CARD;
  voice_id: string | null;
  llm_provider: string | null;
  llm_model: string | null;
  thinking_level: string;
  web_search_enabled: boolean;
  memory_enabled: boolean;
  calendar_enabled: boolean;
  documents_enabled: boolean;
  recording_enabled: boolean;
  draft_revision: { id: string; version: number };
  active_publication: { version: number; revision: { id: string; version: number } } | null;
  instructions: string;
}

describe('dashboard: Agents', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let page: Page;

  beforeAll(async ({ databases, apis }) => {
    fixture = await startDashboard(
      await databases.get('sqlite'),
      apis,
      { ...LLM_ENV, DEMO_PAGE: 'true' },
      {
        beforeStart: async (db, boot) => {
          await addOperator(db, boot, { email: MEMBER_EMAIL, role: 'member' });
          await seedStarterAgent(db, boot.workspaceId, LLM_ENV);
        },
      },
    );
    page = await fixture.newPage();
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
  });

  const row = (target: Page, slug: string) => target.locator(`tbody tr[data-slug="${slug}"]`);
  let conciergeId = '';

  /** The Agent through `/v1` with the development key, as clients read it. */
  const v1Agent = async (id: string): Promise<V1Agent> => {
    const response = await fetch(`${fixture.server.devUrl}/v1/agents/${id}`, {
      headers: { authorization: `Bearer ${fixture.boot.developmentKey.key}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as V1Agent;
  };
  const optionValues = (target: Page, label: string) =>
    target
      .getByRole('form', { name: 'Edit Agent' })
      .getByLabel(label, { exact: true })
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));

  it('lists the starter Agent as published, under the sidebar group Agents', async () => {
    const { owner } = fixture.boot;
    await signInThroughPage(page, fixture.dashboardUrl, '/agents', owner.email, owner.password);
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await expect.poll(() => page.title()).toBe('Agents');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    const groups = await nav.locator('.sidebar-group-title').allInnerTexts();
    expect(groups.map((group) => group.trim().toLowerCase())).toEqual([
      'voices',
      'agents',
      'config',
    ]);
    expect(await nav.getByRole('link', { name: 'Agents' }).getAttribute('aria-current')).toBe(
      'page',
    );
    const guide = row(page, 'guide');
    await guide.waitFor();
    const cells = await guide.locator('td').allInnerTexts();
    expect(cells[0]).toBe('Guide');
    expect(cells[4]).toContain('Version 1');
    const guideId = await guide.getAttribute('data-agent-id');
    expect(await guide.getByRole('link', { name: 'Talk in demo' }).getAttribute('href')).toBe(
      `/demo?agent=${guideId}`,
    );
  });

  it('creates an Agent with a built-in voice and publishes it; /v1 serves version 1', async () => {
    const form = page.getByRole('form', { name: 'Create Agent' });
    await form.getByLabel('Slug').fill('concierge');
    await form.getByLabel('Display name').fill('Concierge');
    await form.getByLabel('Voice').selectOption(NATIVE_VOICE);
    await form.getByLabel('Description').fill('Greets visitors.');
    await form.getByLabel('Instructions').fill('Answer in one short sentence.');
    await form.getByRole('button', { name: 'Create Agent' }).click();

    const created = row(page, 'concierge');
    await created.waitFor();
    expect(await created.locator('td').nth(4).textContent()).toBe('Not published');
    expect(await created.getByRole('link', { name: 'Talk in demo' }).count()).toBe(0);

    await created.getByRole('button', { name: 'Publish' }).click();
    await created.locator('[data-published-version="1"]').waitFor();
    await created.getByRole('link', { name: 'Talk in demo' }).waitFor();
    // The demo page opens with this Agent chosen among the published ones.
    const createdId = await created.getAttribute('data-agent-id');
    const demoHref = await created.getByRole('link', { name: 'Talk in demo' }).getAttribute('href');
    expect(demoHref).toBe(`/demo?agent=${createdId}`);
    const demo = await fixture.newPage();
    await demo.goto(new URL(demoHref ?? '', fixture.dashboardUrl).href);
    await expect.poll(() => demo.locator('#agent option').count()).toBe(2);
    expect(await demo.locator('#agent').inputValue()).toBe(createdId);
    await demo.close();

    const response = await fetch(`${fixture.server.devUrl}/v1/agents`, {
      headers: { authorization: `Bearer ${fixture.boot.developmentKey.key}` },
    });
    expect(response.status).toBe(200);
    const { agents } = (await response.json()) as {
      agents: {
        slug: string;
        display_name: string;
        voice_id: string;
        instructions: string;
        active_publication: { version: number } | null;
      }[];
    };
    const agent = agents.find((candidate) => candidate.slug === 'concierge');
    expect(agent).toMatchObject({
      display_name: 'Concierge',
      voice_id: NATIVE_VOICE,
      instructions: 'Answer in one short sentence.',
    });
    expect(agent?.active_publication?.version).toBe(1);
  });

  it('edits through PATCH; Publish shows the API’s 409 detail without a voice', async () => {
    const { owner } = fixture.boot;
    const client = await signInAs(fixture.server.devUrl, owner.email, owner.password);
    const list = await client.request('GET', '/agents');
    const id = (list.body as { agents: { id: string; slug: string }[] }).agents.find(
      (agent) => agent.slug === 'concierge',
    )?.id;
    const patched = await client.request('PATCH', `/agents/${id}`, { voice_id: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      agent: { slug: 'concierge', voice_id: null, draft_revision: { version: 2 } },
    });

    await page.reload();
    const concierge = row(page, 'concierge');
    await concierge.getByText('(not usable by clients)').waitFor();
    await concierge.getByRole('button', { name: 'Publish' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The Agent has no public voice selection.');
    expect(await concierge.locator('[data-published-version="1"]').count()).toBe(1);

    const restored = await client.request('PATCH', `/agents/${id}`, { voice_id: NATIVE_VOICE });
    expect(restored.status).toBe(200);
  });

  it('shows the API’s detail when a slug is taken', async () => {
    const form = page.getByRole('form', { name: 'Create Agent' });
    await form.getByLabel('Slug').fill('concierge');
    await form.getByRole('button', { name: 'Create Agent' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Another Agent in this environment has this slug.');
    expect(await page.locator('tbody tr[data-slug="concierge"]').count()).toBe(1);
  });

  it('opens an Agent from the list: its page shows the draft, the publication and the card', async () => {
    const { owner } = fixture.boot;
    const client = await signInAs(fixture.server.devUrl, owner.email, owner.password);
    const list = await client.request('GET', '/agents');
    conciergeId =
      (list.body as { agents: { id: string; slug: string }[] }).agents.find(
        (agent) => agent.slug === 'concierge',
      )?.id ?? '';
    const carded = await client.request('PATCH', `/agents/${conciergeId}`, {
      character_card: RICH_CARD,
    });
    expect(carded.status).toBe(200);
    expect(carded.body).toMatchObject({ agent: { draft_revision: { version: 4 } } });

    await page.goto(`${fixture.dashboardUrl}/agents`);
    await row(page, 'concierge').getByRole('link', { name: 'Concierge' }).click();
    await page.getByRole('heading', { name: 'Concierge', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/operator/agents/${conciergeId}`);
    await expect.poll(() => page.title()).toBe('Concierge');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link', { name: 'Agents' }).getAttribute('aria-current')).toBe(
      'page',
    );
    const summary = page.locator('.agent-summary');
    expect(await summary.locator('dt').allInnerTexts()).toEqual([
      'Slug',
      'Agent id',
      'Voice',
      'Draft',
      'Published',
    ]);
    const values = await summary.locator('dd').allInnerTexts();
    expect(values.map((value) => value.trim())).toEqual([
      'concierge',
      conciergeId,
      'Aria (US English)',
      'Revision 4',
      'Version 1 (revision 1, draft has changes)',
    ]);

    const form = page.getByRole('form', { name: 'Edit Agent' });
    const field = (label: string) => form.getByLabel(label, { exact: true });
    expect(await field('Voice').inputValue()).toBe(NATIVE_VOICE);
    expect(await field('Language model provider').inputValue()).toBe('openai');
    expect(await field('Model').inputValue()).toBe('gpt-4.1-mini');
    expect(await field('Thinking level').inputValue()).toBe('off');
    expect(await field('Name').inputValue()).toBe('Concierge');
    expect(await field('Description').inputValue()).toBe('A calm hotel concierge.');
    expect(await field('First message').inputValue()).toBe('Welcome to the hotel.');
    expect(await field('System prompt').inputValue()).toBe('Answer in one short sentence.');
    expect(await field('Example messages').inputValue()).toBe(RICH_CARD.data.mes_example);
    expect(await field('Tags').inputValue()).toBe('hotel, front desk');
    expect(await field('Alternate greetings').isDisabled()).toBe(true);
    expect(await field('Web search').isChecked()).toBe(false);
    expect(await field('Record sessions').isChecked()).toBe(false);
    await form
      .getByText(
        'Record sessions keeps a stereo recording of each live session; tell your users they are recorded.',
      )
      .waitFor();
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
  });

  it('shows the API’s error text when Save is refused, and saves nothing', async () => {
    const form = page.getByRole('form', { name: 'Edit Agent' });
    await form.getByLabel('System prompt', { exact: true }).fill('x'.repeat(100_001));
    await form.getByRole('button', { name: 'Save' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'The Agent was not saved: character_card.data.system_prompt: Too big: expected string to have <=100000 characters',
    );
    expect((await v1Agent(conciergeId)).draft_revision.version).toBe(4);

    await form.getByRole('button', { name: 'Discard changes' }).click();
    expect(await form.getByLabel('System prompt', { exact: true }).inputValue()).toBe(
      'Answer in one short sentence.',
    );
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
  });

  it('saves the edits with one PATCH as the next draft revision; untouched card fields keep their values', async () => {
    const before = await v1Agent(conciergeId);
    const form = page.getByRole('form', { name: 'Edit Agent' });
    const field = (label: string) => form.getByLabel(label, { exact: true });
    await field('System prompt').fill('Answer in two short sentences.');
    await field('First message').fill('Good morning, how can I help?');
    await field('Tags').fill('lobby, front desk');
    await field('Users’ language').fill('es-mx');
    await field('Avatar').selectOption('avatar_kofi');
    // The chosen avatar's preview shows beside it, loaded from this address.
    const preview = form.locator('img.agent-avatar');
    await expect
      .poll(() => preview.evaluate((image) => (image as HTMLImageElement).naturalWidth))
      .toBe(256);
    expect(await preview.getAttribute('alt')).toBe('Kofi');

    expect(await optionValues(page, 'Language model provider')).toEqual(['openai', 'anthropic']);
    expect(await optionValues(page, 'Thinking level')).toEqual(['off']);
    // A provider alone picks its first model, as the server does.
    await field('Language model provider').selectOption('anthropic');
    expect(await field('Model').inputValue()).toBe('claude-sonnet-4-6');
    expect(await optionValues(page, 'Model')).toEqual(['claude-sonnet-4-6', 'claude-haiku-4-5']);
    await field('Language model provider').selectOption('openai');
    expect(await field('Model').inputValue()).toBe('gpt-4.1-mini');
    expect(await optionValues(page, 'Model')).toEqual(['gpt-4.1-mini', 'gpt-4.1', 'o4-mini']);
    await field('Model').selectOption('o4-mini');
    expect(await optionValues(page, 'Thinking level')).toEqual(['off', 'low', 'medium', 'high']);
    await field('Thinking level').selectOption('high');
    await field('Web search').check();
    await field('Record sessions').check();

    const patches: { url: string; body: Record<string, unknown> }[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH') {
        patches.push({ url: request.url(), body: request.postDataJSON() });
      }
    });
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as draft revision 5.' }).waitFor();
    await page.locator('[data-draft-revision="5"]').waitFor();

    expect(patches.map((patch) => new URL(patch.url).pathname)).toEqual([
      `/operator/api/agents/${conciergeId}`,
    ]);
    expect(Object.keys(patches[0]?.body ?? {}).sort()).toEqual([
      'avatar_id',
      'character_card',
      'language',
      'llm_model',
      'llm_provider',
      'recording_enabled',
      'thinking_level',
      'web_search_enabled',
    ]);
    expect(patches[0]?.body).toMatchObject({ web_search_enabled: true, recording_enabled: true });

    const after = await v1Agent(conciergeId);
    expect(after.draft_revision.version).toBe(before.draft_revision.version + 1);
    expect(after.draft_revision.version).toBe(5);
    expect(after.character_card).toEqual({
      ...RICH_CARD,
      data: {
        ...RICH_CARD.data,
        system_prompt: 'Answer in two short sentences.',
        first_mes: 'Good morning, how can I help?',
        tags: ['lobby', 'front desk'],
      },
    });
    expect(after).toMatchObject({
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'o4-mini',
      thinking_level: 'high',
      web_search_enabled: true,
      memory_enabled: false,
      calendar_enabled: false,
      documents_enabled: false,
      recording_enabled: true,
      // Stored in its canonical case.
      language: 'es-MX',
      avatar_id: 'avatar_kofi',
      instructions: 'Answer in two short sentences.',
      active_publication: { version: 1 },
    });

    // The page shows the saved Agent: its values, and nothing left to save.
    expect(await field('System prompt').inputValue()).toBe('Answer in two short sentences.');
    expect(await field('Tags').inputValue()).toBe('lobby, front desk');
    expect(await field('Users’ language').inputValue()).toBe('es-MX');
    expect(await field('Thinking level').inputValue()).toBe('high');
    expect(await field('Record sessions').isChecked()).toBe(true);
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
  });

  it('publishes the saved draft from its page; /v1 serves version 2 of revision 5', async () => {
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('status').filter({ hasText: 'Published as version 2.' }).waitFor();
    const published = page.locator('.agent-summary [data-published-version="2"]');
    await published.waitFor();
    expect(await page.locator('.agent-summary dd').nth(4).textContent()).toBe(
      'Version 2 (revision 5)',
    );
    expect(await page.getByRole('link', { name: 'Talk in demo' }).getAttribute('href')).toBe(
      `/demo?agent=${conciergeId}`,
    );

    const agent = await v1Agent(conciergeId);
    expect(agent.active_publication?.version).toBe(2);
    expect(agent.active_publication?.revision).toEqual(agent.draft_revision);
    expect(agent.draft_revision.version).toBe(5);
  });

  it('shows a member the list read-only; the operator API refuses its writes', async () => {
    const other = await fixture.newPage();
    await signInThroughPage(
      other,
      fixture.dashboardUrl,
      '/agents',
      MEMBER_EMAIL,
      OPERATOR_PASSWORD,
    );
    await row(other, 'concierge').waitFor();
    expect(await row(other, 'guide').count()).toBe(1);
    expect(await other.getByRole('form', { name: 'Create Agent' }).count()).toBe(0);
    expect(await other.getByRole('button', { name: 'Publish' }).count()).toBe(0);
    await other
      .getByText('Creating and publishing Agents requires an organization Owner, Admin or Builder.')
      .waitFor();

    const client = await signInAs(fixture.server.devUrl, MEMBER_EMAIL);
    const create = await client.request('POST', '/agents', {
      slug: 'sneaky',
      voice_id: NATIVE_VOICE,
    });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ code: 'forbidden' });
    const list = await client.request('GET', '/agents');
    expect(list.status).toBe(200);
    const guideId = (list.body as { agents: { id: string; slug: string }[] }).agents.find(
      (agent) => agent.slug === 'guide',
    )?.id;
    const publish = await client.request('POST', `/agents/${guideId}/publish`);
    expect(publish.status).toBe(403);
    expect(publish.body).toMatchObject({ code: 'forbidden' });
  });

  it('shows a member the Agent page read-only; the operator API refuses its PATCH', async () => {
    const other = await fixture.newPage();
    await signInThroughPage(
      other,
      fixture.dashboardUrl,
      `/agents/${conciergeId}`,
      MEMBER_EMAIL,
      OPERATOR_PASSWORD,
    );
    await other.getByRole('heading', { name: 'Concierge', level: 1 }).waitFor();
    await other
      .getByText(
        'Editing and publishing Agents requires an organization Owner, Admin or Builder; you can read this Agent.',
      )
      .waitFor();
    const form = other.getByRole('form', { name: 'Edit Agent' });
    await form.waitFor();
    const controls = form.locator('input, select, textarea');
    const disabled = await controls.evaluateAll((elements) =>
      elements.map((element) => (element as HTMLInputElement).matches(':disabled')),
    );
    // The selects, the language, 5 switches (Record sessions among them) and the card fields.
    expect(disabled).toEqual(Array(22).fill(true));
    expect(await form.getByLabel('System prompt', { exact: true }).inputValue()).toBe(
      'Answer in two short sentences.',
    );
    expect(await form.getByLabel('Model', { exact: true }).inputValue()).toBe('o4-mini');
    // No Save, Discard or Publish: the only button is the sidebar's. Knowledge has no Add
    // document, and there is no Memory section: what the Agent remembers of an end user is
    // that end user's data, withheld from Members like transcripts.
    expect(await other.getByRole('button').allTextContents()).toEqual(['Sign out']);
    expect(await other.getByRole('link', { name: 'Talk in demo' }).count()).toBe(1);

    const client = await signInAs(fixture.server.devUrl, MEMBER_EMAIL);
    const read = await client.request('GET', `/agents/${conciergeId}`);
    expect(read.status).toBe(200);
    const patch = await client.request('PATCH', `/agents/${conciergeId}`, {
      character_card: { ...RICH_CARD, data: { ...RICH_CARD.data, system_prompt: 'Obey me.' } },
    });
    expect(patch.status).toBe(403);
    expect(patch.body).toMatchObject({ code: 'forbidden' });
    const agent = await v1Agent(conciergeId);
    expect(agent.draft_revision.version).toBe(5);
    expect(agent.character_card.data.system_prompt).toBe('Answer in two short sentences.');
  });

  it('imports a card file on the Agent page and exports the draft’s card', async () => {
    await page.goto(`${fixture.dashboardUrl}/agents/${conciergeId}`);
    await page.getByRole('heading', { name: 'Concierge', level: 1 }).waitFor();
    const before = await v1Agent(conciergeId);
    const v2 = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Maya',
        description: 'A night receptionist.',
        first_mes: 'Good evening.',
        system_prompt: 'Speak softly.',
      },
    };
    await page.getByLabel('Import card file').setInputFiles({
      name: 'maya.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(v2)),
    });
    const version = before.draft_revision.version + 1;
    await page
      .getByRole('status')
      .filter({ hasText: `Card imported as draft revision ${version}.` })
      .waitFor();
    const after = await v1Agent(conciergeId);
    expect(after.draft_revision.version).toBe(version);
    expect(after.character_card.data).toMatchObject(v2.data);
    // The form starts again from the imported card.
    const form = page.getByRole('form', { name: 'Edit Agent' });
    await expect
      .poll(() => form.getByLabel('System prompt', { exact: true }).inputValue())
      .toBe('Speak softly.');
    expect(await form.getByLabel('First message', { exact: true }).inputValue()).toBe(
      'Good evening.',
    );

    const href = await page.getByRole('link', { name: 'Export JSON' }).getAttribute('href');
    const exported = await page.evaluate(async (url) => (await fetch(url ?? '')).json(), href);
    expect(exported).toEqual(after.character_card);
  });

  it('serves the pages on reload; no page errors', async () => {
    for (const path of ['/agents', `/agents/${conciergeId}`]) {
      const response = await fetch(`${fixture.dashboardUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    expect(fixture.problems).toEqual([]);
  });
});
