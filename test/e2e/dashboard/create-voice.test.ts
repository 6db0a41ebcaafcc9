// The dashboard's Create voice page (/operator/voices/new: Upload, Record, Import existing)
// and Provider accounts page in Chromium against the real api and a fake ElevenLabs with a
// voice catalog: what an operator sees, and what the operator API then holds.

import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import {
  RECOMMENDED_MODELS as DASHBOARD_RECOMMENDED,
  ROUTE_MODELS,
} from '../../../dashboard/pages/create-voice/models.ts';
import { RECORDING_SCRIPTS } from '../../../dashboard/pages/create-voice/scripts.ts';
import { ELEVENLABS_MODELS } from '../../../src/tts/providers/elevenlabs/models.ts';
import { FISHAUDIO_MODELS } from '../../../src/tts/providers/fishaudio/models.ts';
import { RECOMMENDED_MODELS } from '../../../src/voices/cloning/checks.ts';
import { FakeElevenLabsCatalog } from '../../fakes/elevenlabs-catalog.ts';
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
import type { SampleView, VoiceView } from '../../helpers/operator-cloning.ts';
import { speechSample } from '../../helpers/voice-samples.ts';

/** The workspace's own ElevenLabs key: shown as ••••1c0d, never whole. */
const STUDIO_KEY = 'sk_fake_9a8b7c6d5e4f3a2b1c0d';
const FIRST_TRANSCRIPT = 'Hello there, this is my voice for the dashboard test.';
const ARCHIVE = Array.from({ length: 31 }, (_, i) => ({
  id: `ArchiveVoice${String(i).padStart(8, '0')}`,
  name: `Archive voice ${String(i + 1).padStart(2, '0')}`,
}));

describe('dashboard: Create voice and Provider accounts', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let vendor: FakeElevenLabsCatalog;
  let owner: OperatorClient;
  let page: Page;
  let files: string;
  let firstWav: string;
  let secondWav: string;

  beforeAll(async ({ databases, apis }) => {
    vendor = await FakeElevenLabsCatalog.start({ chunkDelayMs: 1, apiKey: STUDIO_KEY });
    vendor.own.push({ id: 'OwnVoiceAAAAAAAAAAA1', name: 'Alice narrator' }, ...ARCHIVE);
    vendor.shared.push({
      id: 'SharedVoiceDDDDDDDD4',
      name: 'Library Deep',
      publicOwnerId: 'owner0123456789abcdef',
    });
    const microphone = await speechSample(
      'Testing the microphone, one two three, reading a short script aloud.',
      'f3',
      { rateHz: 48_000 },
    );
    fixture = await startDashboard(
      await databases.get('sqlite'),
      apis,
      {
        TTS_RATE_LIMIT_PER_MINUTE: '0',
        ELEVENLABS_API_BASE: vendor.url,
        ELEVENLABS_API_KEY: STUDIO_KEY,
      },
      {
        beforeStart: (db, boot) =>
          addOperator(db, boot, { email: 'viewer@acme.test', role: 'member' }),
        microphone: microphone.audio,
      },
    );
    owner = await signInAs(
      fixture.server.devUrl,
      fixture.boot.owner.email,
      fixture.boot.owner.password,
    );
    files = mkdtempSync(path.join(tmpdir(), 'awp-create-voice-'));
    firstWav = path.join(files, 'first-take.wav');
    secondWav = path.join(files, 'second-take.wav');
    writeFileSync(firstWav, (await speechSample(FIRST_TRANSCRIPT, 'm3')).audio);
    writeFileSync(
      secondWav,
      (await speechSample('A second recording that goes on the Samples tab.', 'm3')).audio,
    );
    page = await fixture.newPage();
    const { owner: boot } = fixture.boot;
    await signInThroughPage(
      page,
      fixture.dashboardUrl,
      '/provider-accounts',
      boot.email,
      boot.password,
    );
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
    await vendor?.close();
    if (files) rmSync(files, { recursive: true, force: true });
  });

  const voiceIdFromUrl = async () => {
    await page.waitForURL(/\/operator\/voices\/voice_[0-9A-Za-z]+$/);
    return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  };
  const samplesOf = async (voiceId: string) => {
    const response = await owner.request('GET', `/voices/${voiceId}/samples`);
    expect(response.status).toBe(200);
    return (response.body as { samples: SampleView[] }).samples;
  };
  const voiceOf = async (voiceId: string) => {
    const response = await owner.request('GET', `/voices/${voiceId}`);
    expect(response.status).toBe(200);
    return (response.body as { voice: VoiceView & { name: string } }).voice;
  };
  const openCreate = async (tab: 'Upload' | 'Record' | 'Import existing') => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Create voice' })
      .click();
    await page.getByRole('heading', { name: 'Create voice', level: 1 }).waitFor();
    await page.getByRole('tab', { name: tab }).click();
  };
  const createButton = () => page.getByRole('button', { name: 'Create voice' });
  const counter = () => page.getByTestId('transcripts');

  it('shows the recommended models the service clones onto, and the models it imports with', () => {
    expect(DASHBOARD_RECOMMENDED).toEqual(RECOMMENDED_MODELS);
    expect(ROUTE_MODELS.elevenlabs.map((m) => m.id)).toEqual(Object.keys(ELEVENLABS_MODELS));
    expect(ROUTE_MODELS.fishaudio.map((m) => m.id)).toEqual(Object.keys(FISHAUDIO_MODELS));
    for (const [provider, table] of [
      ['elevenlabs', ELEVENLABS_MODELS],
      ['fishaudio', FISHAUDIO_MODELS],
    ] as const) {
      for (const model of ROUTE_MODELS[provider]) {
        const info = (table as Record<string, { capabilities: readonly string[] }>)[model.id];
        expect(model.emotionTags, model.id).toBe(info?.capabilities.includes('voice_tags'));
      }
    }
  });

  it('adds provider accounts showing only the key’s last four characters, and removes one', async () => {
    await page.getByRole('heading', { name: 'Provider accounts', level: 1 }).waitFor();
    const config = page.locator('.sidebar-group', { hasText: 'Config' });
    expect(await config.locator('a').allInnerTexts()).toEqual([
      'Integrations',
      'Webhooks',
      'Members',
      'Provider accounts',
      'Usage',
    ]);
    await page.getByText('No provider accounts yet').waitFor();

    const add = page.getByRole('button', { name: 'Add account' });
    expect(await add.isDisabled()).toBe(true);
    expect(await page.getByLabel('API key').getAttribute('type')).toBe('password');
    await page.getByLabel('Provider').selectOption('elevenlabs');
    await page.getByLabel('Label').fill('Studio account');
    await page.getByLabel('API key').fill(STUDIO_KEY);
    await add.click();
    const studio = page.locator('tbody tr', { hasText: 'Studio account' });
    await studio.waitFor();
    expect(await studio.locator('td').allInnerTexts()).toEqual([
      'ElevenLabs',
      'Studio account',
      '••••1c0d',
      expect.any(String),
      'Remove',
    ]);
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    expect(await page.content()).not.toContain(STUDIO_KEY);

    await page.getByLabel('Provider').selectOption('fishaudio');
    await page.getByLabel('Label').fill('Spare fish');
    await page.getByLabel('API key').fill('fish-spare-key-7777');
    await add.click();
    const spare = page.locator('tbody tr', { hasText: 'Spare fish' });
    await spare.waitFor();
    expect(await spare.locator('td').nth(2).innerText()).toBe('••••7777');
    expect(await page.content()).not.toContain('fish-spare-key-7777');
    await spare.getByRole('button', { name: 'Remove' }).click();
    await spare.waitFor({ state: 'detached' });
    const listed = await owner.request('GET', '/provider-accounts');
    expect(
      (listed.body as { provider_accounts: { label: string }[] }).provider_accounts.map(
        (a) => a.label,
      ),
    ).toEqual(['Studio account']);
  });

  it('Upload: Create stays disabled until the counter reads 1/1 and permission is confirmed', async () => {
    await openCreate('Upload');
    expect(await page.getByRole('tab').allInnerTexts()).toEqual([
      'Upload',
      'Record',
      'Import existing',
    ]);
    expect(
      await page.locator('.sidebar-group').first().locator('.sidebar-group-title').innerText(),
    ).toMatch(/voices/i);
    // Only the most specific sidebar link is marked current.
    expect(await page.locator('.sidebar a[aria-current="page"]').allInnerTexts()).toEqual([
      'Create voice',
    ]);
    await page.getByLabel('Voice name').fill('Uploaded narrator');
    await page.getByLabel('Spoken language').selectOption('en-GB');
    expect(await counter().innerText()).toBe('Transcripts 0/0');
    await page.getByLabel('Recordings').setInputFiles(firstWav);
    expect(await counter().innerText()).toBe('Transcripts 0/1');
    await page.getByLabel('Exact transcript of first-take.wav').fill(FIRST_TRANSCRIPT);
    expect(await counter().innerText()).toBe('Transcripts 1/1');
    expect(await createButton().isDisabled()).toBe(true);

    const provider = page.getByRole('checkbox', { name: /ElevenLabs/ });
    expect(await page.locator('.provider-choice').innerText()).toContain('eleven_multilingual_v2');
    await provider.check();
    // The workspace's one ElevenLabs account is the one the clone uses.
    await expect
      .poll(() => page.getByLabel('ElevenLabs account').locator('option').allInnerTexts())
      .toEqual(['Studio account (••••1c0d)']);
    expect(await createButton().isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: /speaker’s permission/ }).check();
    expect(await createButton().isDisabled()).toBe(false);
    await page.getByRole('checkbox', { name: /speaker’s permission/ }).uncheck();
    expect(await createButton().isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: /speaker’s permission/ }).check();
    await createButton().click();

    const voiceId = await voiceIdFromUrl();
    const samples = await samplesOf(voiceId);
    expect(samples.map((s) => [s.transcript, s.language, s.content_type])).toEqual([
      [FIRST_TRANSCRIPT, 'en-GB', 'audio/wav'],
    ]);
    const voice = await voiceOf(voiceId);
    expect(voice.name).toBe('Uploaded narrator');
    expect(
      voice.routes.map((r) => [
        r.provider,
        (r as { provider_account_id?: string }).provider_account_id,
      ]),
    ).toEqual([['elevenlabs', expect.stringMatching(/^pa_/)]]);
  });

  it('Upload with two files sends only the first and names the second for the Samples tab', async () => {
    await openCreate('Upload');
    await page.getByLabel('Voice name').fill('Two files');
    await page.getByLabel('Recordings').setInputFiles([firstWav, secondWav]);
    const later = page.getByTestId('later-recordings');
    await later.waitFor();
    expect(await later.locator('li').allInnerTexts()).toEqual(['second-take.wav']);
    expect(await page.getByRole('status').filter({ hasText: 'Samples tab' }).innerText()).toContain(
      'first-take.wav',
    );
    await page.getByLabel('Exact transcript of first-take.wav').fill(FIRST_TRANSCRIPT);
    expect(await counter().innerText()).toBe('Transcripts 1/1');
    await page.getByRole('checkbox', { name: /Native/ }).check();
    await page.getByRole('checkbox', { name: /speaker’s permission/ }).check();
    await createButton().click();

    const voiceId = await voiceIdFromUrl();
    const samples = await samplesOf(voiceId);
    expect(samples.map((s) => s.transcript)).toEqual([FIRST_TRANSCRIPT]);
    expect(samples[0]?.size_bytes).toBe(statSync(firstWav).size);
  });

  it('Record: records the shown script from the microphone and saves it as the transcript', async () => {
    await openCreate('Record');
    await page.getByLabel('Voice name').fill('Recorded voice');
    await page.getByLabel('Script language').selectOption('ja-JP');
    const script = (await page.getByTestId('script').innerText()).trim();
    expect(script).toBe(RECORDING_SCRIPTS.find((s) => s.language === 'ja-JP')?.text);
    expect(await counter().innerText()).toBe('Transcripts 0/0');
    await page.getByRole('button', { name: 'Start recording' }).click();
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await page
      .getByTestId('timer')
      .filter({ hasText: /^● 0:02/ })
      .waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    const take = page.getByTestId('take');
    await take.waitFor();
    expect(await take.getAttribute('src')).toMatch(/^blob:/);
    expect(await counter().innerText()).toBe('Transcripts 1/1');
    await page.getByRole('checkbox', { name: /Native/ }).check();
    expect(await createButton().isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: /speaker’s permission/ }).check();
    await createButton().click();

    const voiceId = await voiceIdFromUrl();
    const samples = await samplesOf(voiceId);
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({
      transcript: script,
      language: 'ja-JP',
      content_type: 'audio/webm',
    });
    expect((samples[0] as SampleView & { duration_ms: number }).duration_ms).toBeGreaterThan(1_500);
  });

  it('Import existing: browses, searches and pages the catalog, and imports a Ready voice', async () => {
    await openCreate('Import existing');
    // The accounts arrive after the tab opens.
    await expect
      .poll(() => page.getByLabel('Provider account').locator('option').allInnerTexts())
      .toEqual(['Studio account · ElevenLabs (••••1c0d)']);
    const items = page.locator('.catalog-item');
    await items.first().waitFor();
    expect(await items.count()).toBe(30);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => items.count()).toBe(32);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(await items.locator('audio').count()).toBe(32);

    await page.getByRole('radio', { name: 'Public library' }).check();
    await page.getByRole('radio', { name: 'Library Deep' }).waitFor();
    await page.getByRole('radio', { name: 'My voices' }).check();
    await page.getByLabel('Search').fill('alice');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => items.allInnerTexts())
      .toEqual([expect.stringContaining('Alice narrator')]);

    const importButton = page.getByRole('button', { name: 'Import voice' });
    expect(await importButton.isDisabled()).toBe(true);
    await page.getByRole('radio', { name: 'Alice narrator' }).check();
    expect(await page.getByLabel('Route model').inputValue()).toBe('eleven_multilingual_v2');
    await page.getByLabel('Route model').selectOption('eleven_v3');
    await page.getByLabel('Name (optional)').fill('Imported Alice');
    expect(await importButton.isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: /speaker’s permission/ }).check();
    await importButton.click();

    const voiceId = await voiceIdFromUrl();
    const voice = await voiceOf(voiceId);
    expect(voice.name).toBe('Imported Alice');
    expect(
      voice.routes.map((r) => [r.provider, (r as { model?: string }).model, r.state, r.enabled]),
    ).toEqual([['elevenlabs', 'eleven_v3', 'ready', true]]);
    expect(voice.default_route_id).toBe(voice.routes[0]?.id);
  });

  it('refuses to remove an account a voice route uses, with the API’s reason', async () => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Provider accounts' })
      .click();
    const studio = page.locator('tbody tr', { hasText: 'Studio account' });
    await studio.getByRole('button', { name: 'Remove' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(
      /Studio account was not removed: \d+ voice route\(s\) use this provider account/,
    );
    expect(await studio.count()).toBe(1);
  });

  it('tells a member that creating voices requires an Owner or Admin', async () => {
    const other = await fixture.newPage();
    await signInThroughPage(
      other,
      fixture.dashboardUrl,
      '/voices/new',
      'viewer@acme.test',
      OPERATOR_PASSWORD,
    );
    await other.getByText('Creating voices requires a workspace Owner or Admin.').waitFor();
    expect(await other.getByRole('tab').count()).toBe(0);
    expect(await other.getByRole('button', { name: 'Create voice' }).count()).toBe(0);
    await other.close();
  });

  it('logged no page errors', () => {
    expect(fixture.problems).toEqual([]);
  });
});
