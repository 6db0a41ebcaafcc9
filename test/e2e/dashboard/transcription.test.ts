// The dashboard's Transcription page (Agents › Transcription) and Streaming sessions page
// (Voices › Streaming sessions) in Chromium against the real api. Every row is made
// through the public API: realtime transcription sessions over /v1/realtime-transcription
// (one spoken, transcribed by the OpenAI-compatible engine's fake, and 50 empty ones so the
// list pages), and streaming sessions with a speech request and playback events through
// /v1/streaming-sessions and /v1/tts. A Member is told the pages are not theirs.

import type { Page } from 'playwright-core';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../../fakes/openai-transcriptions.ts';
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
import { type ApiClient, apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import {
  type DashboardFixture,
  signInThroughPage,
  startDashboard,
} from '../../helpers/dashboard.ts';
import { openTranscription, sendAudio, silence, speech } from '../../helpers/transcription.ts';

const MEMBER_EMAIL = 'viewer@acme.test';
const SPOKEN = 'What is the weather like today in Paris?';
const RATE = 24_000;

/** As the pages show them (dashboard/pages/usage.tsx, agent-sessions/agent-session-types.ts). */
const credits = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 3 });
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe('dashboard: Transcription and Streaming sessions', () => {
  dialectSuite('sqlite');
  let fake: FakeTranscriptions;
  let fixture: DashboardFixture;
  let page: Page;
  let v1: ApiClient;
  let spokenId = '';

  /** A realtime transcription session through the public WebSocket; resolves with its id. */
  const transcribe = async (audio: Buffer | undefined, partner: string) => {
    const client = await openTranscription(fixture.server.devUrl, fixture.boot.developmentKey.key);
    client.send({
      event: 'start',
      audio_format: 'pcm_24000',
      language: 'en-US',
      partner_session_id: partner,
    });
    if (audio) sendAudio(client, audio, RATE);
    client.send({ event: 'stop' });
    expect((await client.closed).code).toBe(1000);
    return client.events[0]?.session_id as string;
  };

  beforeAll(async ({ databases, apis }) => {
    fake = await startFakeTranscriptions({ apiKey: 'sk-test' });
    fixture = await startDashboard(
      await databases.get('sqlite'),
      apis,
      {
        STT_PROVIDER: 'openai',
        STT_OPENAI_BASE_URL: fake.url,
        STT_OPENAI_API_KEY: 'sk-test',
        PRICE_STT_CREDITS_PER_MINUTE: '6',
        AUDIO_PERSISTENCE: 'false',
      },
      {
        beforeStart: async (db, boot) => {
          await addOperator(db, boot, { email: MEMBER_EMAIL, role: 'member' });
        },
      },
    );
    v1 = apiClient(fixture.server.devUrl, fixture.boot.developmentKey.key);
    page = await fixture.newPage();
  }, 90_000);

  afterAll(async () => {
    await fixture?.close();
    await fake?.close();
  });

  it('lists the environment’s transcription sessions newest first, with Load older', async () => {
    for (let n = 1; n <= 50; n++) await transcribe(undefined, `warm-up-${n}`);
    fake.say(SPOKEN);
    spokenId = await transcribe(
      Buffer.concat([await speech(SPOKEN, RATE), silence(1000, RATE)]),
      'call-42',
    );
    const stored = (await v1('GET', `/v1/realtime-transcription-sessions/${spokenId}`)).body;
    expect(stored).toMatchObject({ status: 'ended', transcript: SPOKEN });

    const { owner } = fixture.boot;
    await signInThroughPage(
      page,
      fixture.dashboardUrl,
      '/transcription',
      owner.email,
      owner.password,
    );
    await page.getByRole('heading', { name: 'Transcription', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(
      await nav.locator('.sidebar-group', { hasText: 'Agents' }).locator('a').allTextContents(),
    ).toEqual(['Agents', 'Sessions', 'Transcription']);
    expect(
      await nav.getByRole('link', { name: 'Transcription' }).getAttribute('aria-current'),
    ).toBe('page');
    const rows = page.locator('tbody tr[data-session-id]');
    await expect.poll(() => rows.count()).toBe(50);
    const first = rows.first();
    expect(await first.getAttribute('data-session-id')).toBe(spokenId);
    expect((await first.locator('td').allTextContents()).slice(1)).toEqual([
      'ended',
      'en-US',
      seconds(stored.audio_ms),
      credits(stored.cost.credits),
      'call-42',
    ]);
    await page.getByRole('button', { name: 'Load older' }).click();
    await expect.poll(() => rows.count()).toBe(51);
    expect(await rows.last().locator('td').last().textContent()).toBe('warm-up-1');
    expect(await page.getByRole('button', { name: 'Load older' }).count()).toBe(0);
  });

  it('opens a session with its status, language, audio, cost and timed transcript', async () => {
    await page.locator(`tr[data-session-id="${spokenId}"] a`).click();
    await page.getByRole('heading', { name: 'Transcription session', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/operator/transcription/${spokenId}`);
    const stored = (await v1('GET', `/v1/realtime-transcription-sessions/${spokenId}`)).body;
    const fact = (term: string) => page.locator(`dd[data-fact="${term}"]`).textContent();
    expect(await fact('Session')).toBe(spokenId);
    expect(await fact('Status')).toBe('ended');
    expect(await fact('Language')).toBe('en-US');
    expect(await fact('Audio')).toBe(seconds(stored.audio_ms));
    expect(await fact('Cost')).toBe(
      `${credits(stored.cost.credits)} credits (${stored.cost.amount.toLocaleString('en-US', {
        style: 'currency',
        currency: 'USD',
        maximumFractionDigits: 6,
      })})`,
    );
    expect(await fact('Partner session')).toBe('call-42');
    const segments = page.locator('.transcription-segments li');
    expect(await segments.count()).toBe(1);
    const [segment] = stored.segments as { start_ms: number; end_ms: number }[];
    const offset = (ms: number) => `0:${(ms / 1000).toFixed(1).padStart(4, '0')}`;
    expect(await segments.first().locator('span').allTextContents()).toEqual([
      `${offset(segment?.start_ms ?? -1)}–${offset(segment?.end_ms ?? -1)}`,
      SPOKEN,
      'en',
    ]);
  });

  it('lists streaming sessions with their usage and shows a session’s events in order', async () => {
    const opened = await v1('POST', '/v1/streaming-sessions', {
      partner_session_id: 'checkout-42',
      metadata: { app: 'ios' },
    });
    expect(opened.status).toBe(201);
    const spoken = await v1('POST', '/v1/tts', {
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      text: 'Your order is ready.',
      partner_session_id: 'checkout-42',
    });
    expect(spoken.status).toBe(200);
    const requestId = spoken.headers.get('x-request-id') ?? '';
    const events = [
      { type: 'playback_started', request_id: requestId },
      { type: 'first_audio_played', request_id: requestId, data: { latency_ms: 180 } },
      { type: 'underrun', request_id: requestId, data: { duration_ms: 40 } },
      { type: 'playback_finished', request_id: requestId },
    ];
    expect(
      (await v1('POST', `/v1/streaming-sessions/${opened.body.id}/events`, { events })).status,
    ).toBe(201);
    const quiet = await v1('POST', '/v1/streaming-sessions');
    expect(quiet.status).toBe(201);
    const session = (await v1('GET', `/v1/streaming-sessions/${opened.body.id}`)).body;
    expect(session.usage).toMatchObject({ requests: 1, succeeded: 1 });

    await page.getByRole('link', { name: 'Streaming sessions' }).click();
    await page.getByRole('heading', { name: 'Streaming sessions', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.locator('.sidebar-group').first().locator('a').allTextContents()).toEqual([
      'Voices',
      'Create voice',
      'Playground',
      'Streaming sessions',
    ]);
    const rows = page.locator('tbody tr[data-session-id]');
    await expect.poll(() => rows.count()).toBe(2);
    expect(
      await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-session-id'))),
    ).toEqual([quiet.body.id, opened.body.id]);
    expect((await rows.nth(1).locator('td').allTextContents()).slice(1)).toEqual([
      'checkout-42',
      'active',
      '1',
      String(session.usage.chars),
      seconds(session.usage.audio_ms),
      credits(session.usage.credits),
      '4',
    ]);

    await rows.nth(1).getByRole('link').click();
    await page.getByRole('heading', { name: 'Streaming session', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/operator/streaming-sessions/${opened.body.id}`);
    const fact = (term: string) => page.locator(`dd[data-fact="${term}"]`).textContent();
    expect(await fact('Requests')).toBe('1 (1 succeeded, 0 failed, 0 cancelled, 0 running)');
    expect(await fact('Metadata')).toBe('{"app":"ios"}');
    expect(await page.getByTestId('event-counts').textContent()).toBe(
      'first_audio_played × 1 · playback_finished × 1 · playback_started × 1 · underrun × 1',
    );
    const eventRows = page.getByRole('table', { name: 'Events' }).locator('tbody tr[data-seq]');
    await expect.poll(() => eventRows.count()).toBe(4);
    const shown = await eventRows.evaluateAll((trs) =>
      trs.map((tr) => {
        const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent);
        return [cells[0], cells[1], cells[3], cells[4]];
      }),
    );
    expect(shown).toEqual([
      ['1', 'playback_started', requestId, '—'],
      ['2', 'first_audio_played', requestId, '{"latency_ms":180}'],
      ['3', 'underrun', requestId, '{"duration_ms":40}'],
      ['4', 'playback_finished', requestId, '—'],
    ]);
  });

  it('tells a Member the pages are for Owner, Admin or Builder; the API refuses them', async () => {
    const other = await fixture.newPage();
    await signInThroughPage(
      other,
      fixture.dashboardUrl,
      '/transcription',
      MEMBER_EMAIL,
      OPERATOR_PASSWORD,
    );
    await other
      .getByText(
        'Realtime transcription sessions and their transcripts are for an organization Owner, Admin or Builder.',
      )
      .waitFor();
    await other.getByRole('link', { name: 'Streaming sessions' }).click();
    await other
      .getByText(
        'Streaming sessions and their usage are for an organization Owner, Admin or Builder.',
      )
      .waitFor();
    const client = await signInAs(fixture.server.devUrl, MEMBER_EMAIL);
    for (const path of [
      '/transcription-sessions',
      `/transcription-sessions/${spokenId}`,
      '/streaming-sessions',
    ]) {
      expect((await client.request('GET', path)).status).toBe(403);
    }
  });

  it('serves the pages on reload; no page errors', async () => {
    for (const path of ['/transcription', `/transcription/${spokenId}`, '/streaming-sessions']) {
      const response = await fetch(`${fixture.dashboardUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    expect(fixture.problems).toEqual([]);
  });
});
