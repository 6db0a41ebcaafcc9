// The dashboard's Playground (rule 10) in Chromium against the real api, on the built-in
// lite voice: inline tag search after `[`, PCM with a Speed override, the tag warning of a
// route without voice tags, Auto Tag's answer there, and the generation kept in History.

import type { Page } from 'playwright-core';
import {
  afterAll,
  beforeAll,
  describe,
  dialectSuite,
  expect,
  it,
  signInAs,
} from '../../fixtures/index.ts';
import {
  type DashboardFixture,
  signInThroughPage,
  startDashboard,
} from '../../helpers/dashboard.ts';
import type { OperatorClient } from '../../helpers/operator.ts';

const LITE_VOICE = 'voice_en0ITv6xOZPfMiT0sGIW';

interface GenerationView {
  id: string;
  text: string;
  output_format: string;
  speed: number | null;
  tags_skipped: boolean;
  size_bytes: number;
  duration_ms: number;
  created_by: string;
  audio_url: string;
}

describe('dashboard: Playground', () => {
  dialectSuite('sqlite');
  let fixture: DashboardFixture;
  let page: Page;
  let api: OperatorClient;

  beforeAll(async ({ databases, apis }) => {
    fixture = await startDashboard(await databases.get('sqlite'), apis);
    page = await fixture.newPage();
    const { owner } = fixture.boot;
    api = await signInAs(fixture.server.devUrl, owner.email, owner.password);
    await signInThroughPage(page, fixture.dashboardUrl, '/playground', owner.email, owner.password);
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
  });

  it('searches tags after [ and inserts the chosen one', async () => {
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    await page.getByLabel('Voice').selectOption(LITE_VOICE);
    const text = page.getByLabel('Text');
    await text.click();
    await text.pressSequentially('Good evening [whi');
    const options = page.getByRole('listbox', { name: 'Tags' }).getByRole('option');
    // Each keystroke searches again: the list of an earlier, shorter query may show first.
    await expect.poll(() => options.allTextContents()).toEqual(['[whispers] Whispered, quiet']);
    await text.press('Enter');
    await text.pressSequentially('the library closes soon.');
    expect(await text.inputValue()).toBe('Good evening [whispers] the library closes soon.');
  });

  it('generates PCM at a chosen speed, warns that the tag was skipped, and keeps it in History', async () => {
    await page.getByLabel('PCM').check();
    await page.getByLabel('Speed override').check();
    await page.getByLabel('Speed', { exact: true }).fill('1.25');
    await page.getByRole('button', { name: 'Generate' }).click();
    const card = page.locator('[data-generation-id]').first();
    await card.waitFor();
    await page
      .getByText('This route does not support tags: they were skipped and the rest was spoken.')
      .waitFor();

    const listed = await api.request('GET', `/voices/${LITE_VOICE}/generations`);
    const generations = (listed.body as { generations: GenerationView[] }).generations;
    expect(generations).toHaveLength(1);
    const [generation] = generations;
    expect(generation).toMatchObject({
      text: 'Good evening [whispers] the library closes soon.',
      output_format: 'pcm_24000',
      speed: 1.25,
      tags_skipped: true,
      created_by: fixture.boot.owner.email,
    });
    expect(await card.getAttribute('data-generation-id')).toBe(generation?.id);

    // The page's player plays the stored WAV: the browser reads its exact length.
    const played = await card.locator('audio').evaluate(
      (audio: HTMLAudioElement) =>
        new Promise<number>((resolve, reject) => {
          if (audio.readyState >= 1) resolve(audio.duration);
          audio.addEventListener('loadedmetadata', () => resolve(audio.duration));
          audio.addEventListener('error', () => reject(new Error('the audio did not load')));
        }),
    );
    expect(Math.round(played * 1000)).toBe(generation?.duration_ms);
    const bytes = await page.evaluate(
      async (url) => (await (await fetch(url)).arrayBuffer()).byteLength,
      generation?.audio_url ?? '',
    );
    expect(bytes).toBe(generation?.size_bytes);
  });

  it('Auto Tag leaves the text alone on a voice without tags, and says why', async () => {
    const text = page.getByLabel('Text');
    await text.fill('That is wonderful news! Ha ha, I can not believe it.');
    await page.getByRole('button', { name: 'Auto Tag' }).click();
    await page
      .getByText('This route does not support tags: Auto Tag left the text as it was.')
      .waitFor();
    expect(await text.inputValue()).toBe('That is wonderful news! Ha ha, I can not believe it.');
  });

  it('lists the built-in voices on the Voices page; Try in Playground opens one', async () => {
    await page.getByRole('link', { name: 'Voices', exact: true }).click();
    await page.getByRole('heading', { name: 'Built-in voices' }).waitFor();
    const catalog = await api.request('GET', '/catalog');
    const ids = (catalog.body as { voices: { id: string }[] }).voices.map((voice) => voice.id);
    const rows = page.locator('table.built-in-voices tbody tr');
    await rows.first().waitFor();
    expect(
      await rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-voice-id'))),
    ).toEqual(ids);
    const other = ids.find((id) => id !== LITE_VOICE) ?? LITE_VOICE;
    await page
      .locator(`table.built-in-voices tr[data-voice-id="${other}"]`)
      .getByRole('link', { name: 'Try in Playground' })
      .click();
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    await expect.poll(() => page.getByLabel('Voice').inputValue()).toBe(other);
    expect(fixture.problems).toEqual([]);
  });
});
