// The dashboard's Agents page (/operator/agents) in Chromium against the real api: the
// starter Agent listed as published, an Agent created through the form with a built-in
// voice and published (then served by GET /v1/agents), and a member's read-only view
// with the operator API refusing its writes.

import pino from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentStore } from '../../../src/agents/agent-store.ts';
import { Agents } from '../../../src/agents/agents.ts';
import { createStarterAgent } from '../../../src/agents/starter-agent.ts';
import { loadConfig } from '../../../src/config.ts';
import { llmCatalogFromConfig } from '../../../src/llm/registry.ts';
import { PublicVoices } from '../../../src/voices/public-voices.ts';
import { VoiceStore } from '../../../src/voices/voice-store.ts';
import { LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import {
  type DashboardFixture,
  signInThroughPage,
  startDashboard,
} from '../../helpers/dashboard.ts';
import { addMember, signedIn } from '../../helpers/operator.ts';

const MEMBER_EMAIL = 'viewer@acme.test';
const MEMBER_PASSWORD = 'member-password-1';

describe('dashboard: Agents', () => {
  let fixture: DashboardFixture;
  let page: Page;

  beforeAll(async () => {
    fixture = await startDashboard(LLM_ENV, {
      beforeStart: async (db, boot) => {
        await addMember(db, boot.workspaceId, MEMBER_EMAIL, 'member', MEMBER_PASSWORD);
        // What the first start does (src/main.ts), with the language models the api offers.
        const llm = llmCatalogFromConfig(loadConfig(LLM_ENV), pino({ level: 'silent' }));
        const agents = new Agents(new AgentStore(db), new PublicVoices(new VoiceStore(db)), llm);
        const starter = await createStarterAgent(agents, boot.workspaceId, 'development');
        if (!starter) throw new Error('the starter Agent was not created');
      },
    });
    page = await fixture.newPage();
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
  });

  const row = (target: Page, slug: string) => target.locator(`tbody tr[data-slug="${slug}"]`);

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
    expect(await guide.getByRole('link', { name: 'Talk in demo' }).getAttribute('href')).toBe(
      '/demo',
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
    const client = await signedIn(fixture.server.devUrl, owner.email, owner.password);
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

  it('shows a member the list read-only; the operator API refuses its writes', async () => {
    const other = await fixture.newPage();
    await signInThroughPage(other, fixture.dashboardUrl, '/agents', MEMBER_EMAIL, MEMBER_PASSWORD);
    await row(other, 'concierge').waitFor();
    expect(await row(other, 'guide').count()).toBe(1);
    expect(await other.getByRole('form', { name: 'Create Agent' }).count()).toBe(0);
    expect(await other.getByRole('button', { name: 'Publish' }).count()).toBe(0);
    await other
      .getByText('Creating and publishing Agents requires an organization Owner, Admin or Builder.')
      .waitFor();

    const client = await signedIn(fixture.server.devUrl, MEMBER_EMAIL, MEMBER_PASSWORD);
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

  it('serves the page on reload; no page errors', async () => {
    const response = await fetch(`${fixture.dashboardUrl}/agents`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(fixture.problems).toEqual([]);
  });
});
