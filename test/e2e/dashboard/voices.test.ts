// The dashboard's Voices list (/operator/voices) and voice page (/operator/voices/:id) in
// Chromium against the real api, cloning to the fake ElevenLabs and Fish Audio servers (the
// api runs the clone jobs in its own process): route states as the operator sees them and
// as the page follows them, the Enabled switch and the default route, Clone to providers,
// a recording added on the Samples tab, a rejected clone in History and Try again, Block,
// and what a Member without a voice-managing role sees.

import type { Page } from 'playwright-core';
import type { SampleInput } from '../../../src/voices/cloning/types.ts';
import { FakeElevenLabs } from '../../fakes/elevenlabs.ts';
import { FakeFishAudio } from '../../fakes/fishaudio.ts';
import {
  addOperator,
  afterAll,
  afterEach,
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
import {
  created,
  meta,
  recording,
  routeOf,
  type VoiceView,
} from '../../helpers/operator-cloning.ts';
import { speechSample } from '../../helpers/voice-samples.ts';
import { waitFor } from '../../helpers/wait.ts';

const MEMBER_EMAIL = 'listener@acme.test';
const REJECTED = 'The provider rejected the recordings.';
/** The page reads a cloning voice again every 2 s; a few rounds on a busy machine. */
const FOLLOW = { timeout: 20_000, interval: 200 };

describe('dashboard: voices', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let elevenlabs: FakeElevenLabs;
  let fish: FakeFishAudio;
  let owner: OperatorClient;
  let page: Page;
  let first: SampleInput;
  let second: SampleInput;
  let narratorId: string;
  let rejectedId: string;

  const create = async (name: string, providers: string[]) =>
    created(
      await owner.upload(
        '/voices',
        {
          name,
          permission_confirmed: true,
          targets: providers.map((provider) => ({ provider })),
          recordings: [meta(first)],
        },
        [recording(first)],
      ),
    ).voice.id;
  const getVoice = async (voiceId: string) => {
    const response = await owner.request('GET', `/voices/${voiceId}`);
    expect(response.status).toBe(200);
    return (response.body as { voice: VoiceView }).voice;
  };
  const settled = (voiceId: string) =>
    waitFor(
      async () => {
        const voice = await getVoice(voiceId);
        return voice.routes.every((r) => r.state !== 'cloning') && voice;
      },
      { what: `the clones of ${voiceId} to finish` },
    );
  /** The state badges of the routes table, in route order. */
  const routeBadges = (on: Page = page) =>
    on.locator('.routes-table tbody tr[data-route-id] .badge-state').allInnerTexts();
  const routeRow = (provider: string) =>
    page.locator(`.routes-table tbody tr[data-provider="${provider}"]`);

  beforeAll(async ({ databases, apis }) => {
    elevenlabs = await FakeElevenLabs.start({ knownVoicesOnly: true });
    fish = await FakeFishAudio.start({ knownVoicesOnly: true });
    fixture = await startDashboard(
      await databases.get('sqlite'),
      apis,
      {
        ELEVENLABS_API_BASE: elevenlabs.url,
        ELEVENLABS_API_KEY: elevenlabs.apiKey,
        FISHAUDIO_API_BASE: fish.url,
        FISHAUDIO_API_KEY: fish.apiKey,
        CLONE_JOB_ATTEMPTS: '2',
        CLONE_JOB_BACKOFF_MS: '100',
      },
      {
        beforeStart: (db, boot) => addOperator(db, boot, { email: MEMBER_EMAIL, role: 'member' }),
      },
    );
    const { email, password } = fixture.boot.owner;
    // The dashboard's own listener (development): voices belong to one environment.
    owner = await signInAs(fixture.server.devUrl, email, password);
    [first, second] = await Promise.all([
      speechSample('Hello there, this is my voice for the dashboard test.', 'm3'),
      speechSample('A second recording, added on the Samples tab.', 'm3'),
    ]);
    page = await fixture.newPage();
  }, 120_000);

  afterEach(() => {
    // A failed test must not leave vendor answers held for the next one.
    elevenlabs?.releaseResponses();
    fish?.releaseResponses();
  });

  afterAll(async () => {
    await fixture?.close();
    await elevenlabs?.close();
    await fish?.close();
  });

  it('lists every voice with its route states and follows a clone until it is Ready', async () => {
    fish.failNext({ kind: 'status', status: 422 }, 1, { method: 'POST', path: /^\/model$/ });
    rejectedId = await create('Rejected', ['fishaudio']);
    expect(routeOf(await settled(rejectedId), 'fishaudio').state).toBe('failed');
    elevenlabs.holdResponses();
    narratorId = await create('Narrator', ['elevenlabs', 'native']);

    const { email, password } = fixture.boot.owner;
    await signInThroughPage(page, fixture.dashboardUrl, '/', email, password);
    // The dashboard opens on the Voices list, first in the sidebar.
    await page.getByRole('heading', { name: 'Voices', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/operator/voices');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.locator('.sidebar-group-title').first().innerText()).toMatch(/^voices$/i);
    expect(await nav.getByRole('link', { name: 'Voices', exact: true }).getAttribute('href')).toBe(
      '/operator/voices',
    );
    const createLink = page.locator('.page-actions').getByRole('link', { name: 'Create voice' });
    expect(await createLink.getAttribute('href')).toBe('/operator/voices/new');

    const narrator = page.locator(`tr[data-voice-id="${narratorId}"]`);
    await narrator
      .locator('li[data-provider="elevenlabs"] .badge', { hasText: 'Cloning' })
      .waitFor();
    const cells = narrator.locator('td');
    expect(await cells.nth(0).innerText()).toBe('Narrator');
    expect(await cells.nth(1).locator('code').innerText()).toBe(narratorId);
    expect(await cells.nth(2).innerText()).toBe('ElevenLabs · eleven_multilingual_v2');

    // The vendor answers; the list follows without a reload.
    elevenlabs.releaseResponses();
    await expect
      .poll(() => narrator.locator('.badge').allInnerTexts(), FOLLOW)
      .toEqual(['Ready', 'Ready']);
    expect(await cells.nth(4).innerText()).toMatch(/^Offered · \d+ output formats/);

    const rejected = page.locator(`tr[data-voice-id="${rejectedId}"]`);
    expect(await rejected.locator('.badge').allInnerTexts()).toEqual(['Failed']);
    expect(await rejected.locator('td').nth(4).innerText()).toBe(
      'Not offered: no ready enabled route',
    );
    expect(await page.locator('table.voices-table tbody tr[data-voice-id]').count()).toBe(2);
  });

  it('keeps the default route’s switch on; another route’s switch hides it', async () => {
    await page
      .locator(`tr[data-voice-id="${narratorId}"]`)
      .getByRole('link', { name: 'Narrator' })
      .click();
    await page.getByRole('heading', { name: 'Narrator', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/operator/voices/${narratorId}`);
    expect(await page.locator('.voice-summary code').innerText()).toBe(narratorId);
    expect(await page.getByRole('tab').allInnerTexts()).toEqual(['Routes', 'Samples', 'History']);
    expect(await routeBadges()).toEqual(['Ready', 'Ready']);

    const elevenSwitch = page.getByRole('switch', { name: 'Enabled: ElevenLabs' });
    const nativeSwitch = page.getByRole('switch', { name: 'Enabled: Native' });
    expect(await routeRow('elevenlabs').locator('.badge-default').innerText()).toBe('Default');
    expect(await elevenSwitch.isChecked()).toBe(true);
    expect(await elevenSwitch.isDisabled()).toBe(true);
    expect(await elevenSwitch.getAttribute('title')).toMatch(/default route is always enabled/);

    expect(await nativeSwitch.isDisabled()).toBe(false);
    await nativeSwitch.click();
    await expect
      .poll(async () => routeOf(await getVoice(narratorId), 'native').enabled)
      .toBe(false);
    await expect.poll(() => nativeSwitch.isChecked()).toBe(false);
    await nativeSwitch.click();
    await expect.poll(async () => routeOf(await getVoice(narratorId), 'native').enabled).toBe(true);

    // Make default moves the marker and the fixed switch; the voice id stays.
    await routeRow('native').getByRole('button', { name: 'Make default' }).click();
    await routeRow('native').locator('.badge-default').waitFor();
    const moved = await getVoice(narratorId);
    expect(moved.default_route_id).toBe(routeOf(moved, 'native').id);
    expect(await nativeSwitch.isDisabled()).toBe(true);
    expect(await elevenSwitch.isDisabled()).toBe(false);
    await routeRow('elevenlabs').getByRole('button', { name: 'Make default' }).click();
    await routeRow('elevenlabs').locator('.badge-default').waitFor();
    expect((await getVoice(narratorId)).default_route_id).toBe(routeOf(moved, 'elevenlabs').id);
  });

  it('offers only providers not attached; a rejected clone shows in History; Try again', async () => {
    const panel = page.getByRole('form', { name: 'Clone to providers' });
    const target = (provider: string) => panel.locator(`[data-provider="${provider}"]`);
    const box = (provider: string) => target(provider).getByRole('checkbox');
    expect(await box('elevenlabs').isDisabled()).toBe(true);
    expect(await box('native').isDisabled()).toBe(true);
    expect(await target('elevenlabs').innerText()).toContain('already attached (Ready)');
    expect(await box('fishaudio').isDisabled()).toBe(false);
    expect(await target('fishaudio').innerText()).toContain('recommended model');
    const cloneButton = panel.getByRole('button', { name: 'Clone' });
    expect(await cloneButton.isDisabled()).toBe(true);

    fish.failNext({ kind: 'status', status: 422 }, 1, { method: 'POST', path: /^\/model$/ });
    await box('fishaudio').check();
    expect(await target('fishaudio').getByRole('combobox').inputValue()).toBe('');
    await cloneButton.click();
    await routeRow('fishaudio').locator('.badge-failed').waitFor(FOLLOW);
    expect(await routeRow('fishaudio').locator('.state-reason').innerText()).toBe(REJECTED);
    // Failed is attached too: Try again resubmits it, Clone to providers does not.
    expect(await box('fishaudio').isDisabled()).toBe(true);
    expect(await target('fishaudio').innerText()).toContain('already attached (Failed)');

    await page.getByRole('tab', { name: 'History' }).click();
    const attempts = page.locator('.history-table tbody tr[data-attempt-id]');
    await attempts.first().waitFor();
    // Newest first: the rejected Fish Audio attempt, then the two that built the voice.
    expect(await attempts.locator('td:nth-child(2)').allInnerTexts()).toEqual([
      'Fish Audio',
      'Native',
      'ElevenLabs',
    ]);
    const newest = attempts.first();
    expect(await newest.locator('.badge-state').innerText()).toBe('Failed');
    expect(await newest.locator('.failure-summary').innerText()).toBe(REJECTED);
    expect(await newest.locator('pre').isVisible()).toBe(false);
    await newest.getByText('Technical details').click();
    expect(await newest.locator('pre').innerText()).toContain('status 422');
    expect(await newest.locator('dl').innerText()).toContain(fixture.boot.owner.email);

    await page.getByRole('button', { name: 'Try again' }).click();
    await expect
      .poll(() => attempts.first().locator('.badge-state').innerText(), FOLLOW)
      .toBe('Succeeded');
    expect(await attempts.count()).toBe(4);
    expect(await attempts.first().locator('td:nth-child(2)').innerText()).toBe('Fish Audio');
    expect(routeOf(await getVoice(narratorId), 'fishaudio').state).toBe('ready');
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
  });

  it('adds a recording on the Samples tab; Ready routes become Update available', async () => {
    await page.getByRole('tab', { name: 'Samples' }).click();
    const samples = page.locator('.samples-table tbody tr[data-sample-id]');
    await samples.first().waitFor();
    expect(await samples.count()).toBe(1);
    const sampleId = await samples.first().getAttribute('data-sample-id');
    const cells = await samples.first().locator('td').allInnerTexts();
    expect(cells.slice(1, 3)).toEqual([first.language, first.transcript]);
    expect(cells[4]).toContain(fixture.boot.owner.email);
    const src = `/operator/api/voices/${narratorId}/samples/${sampleId}/audio`;
    expect(await samples.first().locator('audio').getAttribute('src')).toBe(src);
    const played = await page.evaluate(async (url) => {
      const response = await fetch(url);
      return [response.status, response.headers.get('content-type')];
    }, src);
    expect(played).toEqual([200, 'audio/wav']);

    const add = page.getByRole('button', { name: 'Add', exact: true });
    expect(await add.isDisabled()).toBe(true);
    await page.getByLabel('Recording', { exact: true }).setInputFiles({
      name: 'second.wav',
      mimeType: 'audio/wav',
      buffer: second.audio,
    });
    await page.getByLabel('Language').fill('en-US');
    await page.getByLabel('Exact transcript').fill(second.transcript);
    // Not before the speaker's permission is confirmed.
    expect(await add.isDisabled()).toBe(true);
    await page.getByLabel(/I confirm the speaker has given permission/).check();
    expect(await add.isDisabled()).toBe(false);
    await add.click();
    await page.getByText('Ready routes are now Update available').waitFor();
    await expect.poll(() => samples.count()).toBe(2);
    expect(await samples.nth(1).locator('td').first().innerText()).toBe('second.wav');

    await page.getByRole('tab', { name: 'Routes' }).click();
    const voice = await getVoice(narratorId);
    expect(voice.routes.map((r) => r.state)).toEqual([
      'update_available',
      'update_available',
      'update_available',
    ]);
    expect(await routeBadges()).toEqual([
      'Update available',
      'Update available',
      'Update available',
    ]);
    // An attached provider may be chosen again now: re-submitting refreshes it.
    const panel = page.getByRole('form', { name: 'Clone to providers' });
    const eleven = panel.locator('[data-provider="elevenlabs"]');
    expect(await eleven.getByRole('checkbox').isDisabled()).toBe(false);
    expect(await eleven.innerText()).toContain('re-submit to refresh');

    await routeRow('elevenlabs').getByRole('button', { name: 'Refresh' }).click();
    await expect
      .poll(() => routeRow('elevenlabs').locator('.badge-state').innerText(), FOLLOW)
      .toBe('Ready');
    expect(await routeRow('fishaudio').locator('.badge-state').innerText()).toBe(
      'Update available',
    );
  });

  it('blocks a route with a reason and unblocks it', async () => {
    const row = routeRow('native');
    await row.getByRole('button', { name: 'Block' }).click();
    const confirm = row.getByRole('button', { name: 'Block route' });
    expect(await confirm.isDisabled()).toBe(true);
    await row.getByLabel('Reason for blocking').fill('Consent withdrawn');
    await confirm.click();
    await row.locator('.badge-blocked').waitFor();
    expect(await row.locator('.state-reason').innerText()).toBe(
      'Blocked by an operator: Consent withdrawn',
    );
    const blocked = routeOf(await getVoice(narratorId), 'native');
    expect([blocked.state, blocked.blocked_by]).toEqual(['blocked', 'operator']);

    await row.getByRole('button', { name: 'Unblock' }).click();
    await expect.poll(() => row.locator('.badge-state').innerText()).toBe('Update available');
    expect(routeOf(await getVoice(narratorId), 'native').state).toBe('update_available');
  });

  it('keeps the voice’s Playground generations in History, each playable and deletable', async () => {
    const text = 'Tickets are at the front desk.';
    const generated = await owner.request('POST', `/voices/${narratorId}/generations`, {
      text,
      output_format: 'opus',
    });
    expect(generated.status, JSON.stringify(generated.body)).toBe(201);
    const { audio_url: audioUrl } = (generated.body as { generation: { audio_url: string } })
      .generation;
    await page.getByRole('tab', { name: 'History' }).click();
    const card = page.locator('.history-generations [data-generation-id]');
    await card.waitFor();
    expect(await card.count()).toBe(1);
    expect(await card.locator('p').innerText()).toBe(text);
    expect(await card.innerText()).toContain(fixture.boot.owner.email);
    expect(await card.locator('audio').getAttribute('src')).toBe(audioUrl);
    const played = await page.evaluate(
      async (url) => (await fetch(url)).headers.get('content-type'),
      audioUrl,
    );
    expect(played).toMatch(/^audio\//);

    // Delete takes it out of History, and the operator API no longer lists it.
    await card.getByRole('button', { name: 'Delete' }).click();
    await card.waitFor({ state: 'detached' });
    const listed = await owner.request('GET', `/voices/${narratorId}/generations`);
    expect(listed.body).toEqual({ generations: [] });
  });

  it('shows a Member every voice without a single write control', async () => {
    // The owner sees Try again on the failed voice; the Member sees the failure only.
    await page.goto(`${fixture.dashboardUrl}/voices/${rejectedId}`);
    await page.getByRole('heading', { name: 'Rejected', level: 1 }).waitFor();
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('button', { name: 'Try again' }).waitFor();

    const other = await fixture.newPage();
    await signInThroughPage(
      other,
      fixture.dashboardUrl,
      '/voices',
      MEMBER_EMAIL,
      OPERATOR_PASSWORD,
    );
    await other.locator(`tr[data-voice-id="${narratorId}"]`).waitFor();
    expect(await other.locator('table.voices-table tbody tr[data-voice-id]').count()).toBe(2);
    expect(await other.locator('.page-actions').count()).toBe(0);

    const writeControls = async (on: Page) => {
      const names = await on
        .locator('.content button')
        .evaluateAll((buttons) => buttons.map((button) => button.textContent ?? ''));
      const writes = names.filter(
        (name) => !['Routes', 'Samples', 'History'].includes(name) && !name.startsWith('Cop'),
      );
      const inputs = await on.locator('.content input, .content select, .content textarea').count();
      return { writes, inputs, forms: await on.locator('.content form').count() };
    };
    for (const [voiceId, name] of [
      [narratorId, 'Narrator'],
      [rejectedId, 'Rejected'],
    ] as const) {
      await other.goto(`${fixture.dashboardUrl}/voices/${voiceId}`);
      await other.getByRole('heading', { name, level: 1 }).waitFor();
      await other
        .getByText('Configuring and cloning voices requires a workspace Owner or Admin')
        .waitFor();
      const routeRows = other.locator('.routes-table tbody tr[data-route-id]');
      await routeRows.first().waitFor();
      expect(await other.getByRole('switch').count()).toBe(0);
      expect(await writeControls(other)).toEqual({ writes: [], inputs: 0, forms: 0 });
      await other.getByRole('tab', { name: 'Samples' }).click();
      await other.locator('.samples-table audio').first().waitFor();
      expect(await writeControls(other)).toEqual({ writes: [], inputs: 0, forms: 0 });
      await other.getByRole('tab', { name: 'History' }).click();
      await other.locator('.history-table tbody tr[data-attempt-id]').first().waitFor();
      expect(await writeControls(other)).toEqual({ writes: [], inputs: 0, forms: 0 });
    }
    // The failed voice's History: the failure, no Try again.
    expect(await other.locator('.failure-summary').first().innerText()).toBe(REJECTED);
    expect(await other.getByRole('button', { name: 'Try again' }).count()).toBe(0);
  });

  it('shows the API’s detail for a voice that is not there; no page errors', async () => {
    const missing = 'voice_00000000000000000000';
    const answer = await owner.request('GET', `/voices/${missing}`);
    expect(answer.status).toBe(404);
    const { detail } = answer.body as { detail: string };
    await page.goto(`${fixture.dashboardUrl}/voices/${missing}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toBe(detail);
    expect(fixture.problems).toEqual([]);
  });
});
