// The dashboard's Agents › Sessions page (/operator/sessions) and a session's page in
// Chromium against the real api: a conversation of the starter Agent recorded as the
// worker records it (transcript, usage, latency, its end), listed with its length, turns,
// voice latency and charge, opened with its transcript and its recording (played by a
// Builder, deleted by an Owner); and a member told the page is not theirs.

import type { Page } from 'playwright-core';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { AgentStore } from '../../../src/agents/agent-store.ts';
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
import { storeSessionRecording } from '../../helpers/session-recordings.ts';

const MEMBER_EMAIL = 'viewer@acme.test';
const BUILDER_EMAIL = 'builder@acme.test';
const SESSION_ID = '0193a1f0-5c1e-7a00-8000-00000000a11c';
const OLDER_SESSIONS = 50;

describe('dashboard: Agent sessions', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let page: Page;
  let recording: { audio: Buffer; durationMs: number };

  beforeAll(async ({ databases, apis }) => {
    fixture = await startDashboard(await databases.get('sqlite'), apis, LLM_ENV, {
      beforeStart: async (db, boot, database) => {
        await addOperator(db, boot, { email: MEMBER_EMAIL, role: 'member' });
        await addOperator(db, boot, { email: BUILDER_EMAIL, role: 'builder' });
        const agentId = await seedStarterAgent(db, boot.workspaceId, LLM_ENV);
        const snapshot = await new AgentStore(db).activePublication(
          boot.workspaceId,
          'development',
          agentId,
        );
        if (!snapshot) throw new Error('the starter Agent is not published');
        // What the api and the worker record of one conversation.
        const sessions = new AgentSessions(db, { heartbeatTimeoutMs: 60_000 });
        await sessions.create({
          id: SESSION_ID,
          snapshot,
          apiKeyId: boot.developmentKey.id,
          endUserId: 'user-17',
          room: `agent-session-${SESSION_ID}`,
          overrides: undefined,
          sessionContext: undefined,
          expiresAt: new Date(Date.now() + 60_000),
        });
        await sessions.markActive(SESSION_ID);
        const turns = [
          ['agent', 'Hi, I am your guide. Where would you like to start?', false],
          ['user', 'How do I create a voice?', false],
          ['agent', 'Open Create voice and record about ten', true],
        ] as const;
        for (const [index, [role, text, interrupted]] of turns.entries()) {
          await sessions.addTurn({
            id: `turn-${index + 1}`,
            sessionId: SESSION_ID,
            role,
            text,
            interrupted,
          });
        }
        await sessions.addUsage(SESSION_ID, { llmInputTokens: 640, llmOutputTokens: 72 });
        await sessions.recordLatency(SESSION_ID, {
          turns: 1,
          endOfSpeechToFirstAudioMs: { p50: 910, p95: 910, max: 910 },
          transcriptionDelayMs: { p50: 330, p95: 330, max: 330 },
          llmFirstTokenMs: null,
          ttsFirstAudioMs: { p50: 14, p95: 14, max: 14 },
        });
        await sessions.end(SESSION_ID, 'ended', 'user_left', {
          sessionMs: 65_000,
          millicredits: 1_625,
        });
        // Its recording, stored as the worker stores it (a real stereo Ogg Opus file).
        recording = await storeSessionRecording(
          db,
          database.dataDir,
          { id: SESSION_ID, workspaceId: boot.workspaceId },
          2,
        );
        // Fifty earlier sessions of another end user, a minute apart: one more than a page.
        for (let i = 0; i < OLDER_SESSIONS; i++) {
          const at = Date.parse('2026-01-01T00:00:00Z') + i * 60_000;
          const earlier = new AgentSessions(db, { heartbeatTimeoutMs: 60_000, now: () => at });
          const id = `0193a1f0-5c1e-7a00-8000-${String(i).padStart(12, '0')}`;
          await earlier.create({
            id,
            snapshot,
            apiKeyId: boot.developmentKey.id,
            endUserId: 'user-99',
            room: `agent-session-${id}`,
            overrides: undefined,
            sessionContext: undefined,
            expiresAt: new Date(at + 60_000),
          });
          await earlier.end(id, 'ended', 'user_left');
        }
      },
    });
    page = await fixture.newPage();
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
  });

  it('lists the conversation under Agents › Sessions', async () => {
    const { owner } = fixture.boot;
    await signInThroughPage(page, fixture.dashboardUrl, '/sessions', owner.email, owner.password);
    await page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    await expect.poll(() => page.title()).toBe('Sessions');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    const agentsGroup = nav.locator('.sidebar-group', { hasText: 'Agents' });
    expect(await agentsGroup.locator('a').allInnerTexts()).toEqual([
      'Agents',
      'Sessions',
      'Transcription',
    ]);
    const row = page.locator(`tbody tr[data-session-id="${SESSION_ID}"]`);
    await row.waitFor();
    const cells = (await row.locator('td').allInnerTexts()).map((cell) => cell.trim());
    expect(cells.slice(1)).toEqual([
      'guide',
      'managed',
      'Ended',
      '1 min 05 s',
      '3',
      '910 ms',
      '1.625',
    ]);
  });

  it('opens the session: its facts, latency by stage and the transcript', async () => {
    await page.locator(`tbody tr[data-session-id="${SESSION_ID}"] a`).click();
    await page.getByRole('heading', { name: 'Session with guide', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/operator/sessions/${SESSION_ID}`);
    const fact = async (name: string) =>
      ((await page.locator(`dd[data-fact="${name}"]`).textContent()) ?? '').trim();
    expect(await fact('End user')).toBe('user-17');
    expect(await fact('State')).toBe('ended');
    expect(await fact('Length')).toBe('1 min 05 s');
    expect(await fact('Credits')).toBe('1.625');
    expect(await fact('Language model')).toBe('640 tokens in, 72 out');
    const latency = await page.locator('.latency-table tbody tr').allInnerTexts();
    expect(latency.map((line) => line.split('\t').map((cell) => cell.trim()))).toEqual([
      ['End of speech to first audio', '910', '910', '910'],
      ['Transcript after end of speech', '330', '330', '330'],
      ['Language model, first token', '—', '—', '—'],
      ['Speech synthesis, first audio', '14', '14', '14'],
    ]);
    const turns = page.locator('.transcript li');
    expect(
      await turns.evaluateAll((items) => items.map((item) => item.getAttribute('data-role'))),
    ).toEqual(['agent', 'user', 'agent']);
    expect(await turns.locator('.turn-text').allInnerTexts()).toEqual([
      'Hi, I am your guide. Where would you like to start?',
      'How do I create a voice?',
      'Open Create voice and record about ten',
    ]);
    expect(await turns.nth(2).textContent()).toContain('(interrupted)');
    expect(await turns.nth(0).textContent()).not.toContain('(interrupted)');
    expect(fixture.problems).toEqual([]);
  });

  it('pages with Load older and filters by end user', async () => {
    await page.getByRole('link', { name: '← Sessions' }).click();
    const rows = page.locator('tbody tr[data-session-id]');
    await expect.poll(() => rows.count()).toBe(50);
    expect(await rows.first().getAttribute('data-session-id')).toBe(SESSION_ID);
    await page.getByRole('button', { name: 'Load older' }).click();
    await expect.poll(() => rows.count()).toBe(OLDER_SESSIONS + 1);
    expect(await page.getByRole('button', { name: 'Load older' }).count()).toBe(0);

    const endUser = page.getByLabel('End user');
    await endUser.fill('user-17');
    await endUser.press('Enter');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-session-id')).toBe(SESSION_ID);
    await endUser.fill('nobody');
    await endUser.press('Enter');
    await page.getByText('No sessions yet.').waitFor();
    expect(await rows.count()).toBe(0);
  });

  it('tells a member the sessions are for Owner, Admin and Builder', async () => {
    const memberPage = await fixture.newPage();
    await signInThroughPage(
      memberPage,
      fixture.dashboardUrl,
      '/sessions',
      MEMBER_EMAIL,
      OPERATOR_PASSWORD,
    );
    await memberPage
      .getByText(
        'Agent sessions and their transcripts are for an organization Owner, Admin or Builder.',
      )
      .waitFor();
    expect(await memberPage.locator('table').count()).toBe(0);
  });

  const recordingUrl = `/operator/api/agent-sessions/${SESSION_ID}/recording`;

  it('plays and offers the recording to a Builder, who cannot delete it', async () => {
    const builderPage = await fixture.newPage();
    await signInThroughPage(
      builderPage,
      fixture.dashboardUrl,
      `/sessions/${SESSION_ID}`,
      BUILDER_EMAIL,
      OPERATOR_PASSWORD,
    );
    const section = builderPage.locator('.session-recording');
    await section.getByRole('heading', { name: 'Recording', level: 2 }).waitFor();
    const audio = section.locator('audio');
    expect(await audio.getAttribute('src')).toBe(recordingUrl);
    expect(await audio.getAttribute('preload')).toBe('none');
    expect(await audio.getAttribute('controls')).not.toBeNull();
    // What the player loads: the stored file, with the page's session cookie.
    const fetched = await builderPage.evaluate(async (src) => {
      const response = await fetch(src);
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        bytes: Array.from(new Uint8Array(await response.arrayBuffer())),
      };
    }, recordingUrl);
    expect(fetched.status).toBe(200);
    expect(fetched.type).toBe('audio/ogg');
    expect(Buffer.compare(Buffer.from(fetched.bytes), recording.audio)).toBe(0);
    expect(recording.durationMs).toBe(2_000);
    expect(await section.locator('[data-recording="length"]').textContent()).toBe('2.0 s');
    await section.getByText('Stereo: the user on the left, the Agent on the right').waitFor();
    const download = section.getByRole('link', { name: 'Download' });
    expect(await download.getAttribute('href')).toBe(recordingUrl);
    expect(await download.getAttribute('download')).toBe(`session-${SESSION_ID}.ogg`);
    expect(await section.getByRole('button', { name: 'Delete recording' }).count()).toBe(0);

    const builder = await signInAs(fixture.server.devUrl, BUILDER_EMAIL);
    const refused = await builder.request('DELETE', `/agent-sessions/${SESSION_ID}/recording`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'forbidden' });
    expect((await builder.request('GET', `/agent-sessions/${SESSION_ID}/recording`)).status).toBe(
      200,
    );
  });

  it('says "Not recorded" of an ended session without a recording', async () => {
    await page.goto(`${fixture.dashboardUrl}/sessions/0193a1f0-5c1e-7a00-8000-000000000000`);
    const section = page.locator('.session-recording');
    await section.getByText('Not recorded').waitFor();
    expect(await section.locator('audio').count()).toBe(0);
  });

  it('lets an Owner delete the recording after confirming', async () => {
    await page.goto(`${fixture.dashboardUrl}/sessions/${SESSION_ID}`);
    const section = page.locator('.session-recording');
    await section.locator('audio').waitFor();
    const dialogs: string[] = [];
    const deletes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(new URL(request.url()).pathname);
    });
    // Cancelled: nothing is deleted.
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const remove = section.getByRole('button', { name: 'Delete recording' });
    await remove.click();
    await expect.poll(() => dialogs.length).toBe(1);
    expect(deletes).toEqual([]);
    expect(await section.locator('audio').count()).toBe(1);
    // Confirmed.
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await remove.click();
    await section.getByText('Not recorded').waitFor();
    expect(dialogs).toEqual([
      'Delete the recording of this session? It cannot be recovered.',
      'Delete the recording of this session? It cannot be recovered.',
    ]);
    expect(deletes).toEqual([recordingUrl]);
    expect(await section.locator('audio').count()).toBe(0);
    expect(await section.getByRole('link', { name: 'Download' }).count()).toBe(0);

    const { owner } = fixture.boot;
    const client = await signInAs(fixture.server.devUrl, owner.email, owner.password);
    const gone = await client.request('GET', `/agent-sessions/${SESSION_ID}/recording`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 'not_found' });
    expect(fixture.problems).toEqual([]);
  });
});
