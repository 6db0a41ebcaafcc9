import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { FakeElevenLabsCatalog } from '../../fakes/elevenlabs-catalog.ts';
import { FakeFishAudioCatalog } from '../../fakes/fishaudio-catalog.ts';
import {
  afterAll,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInOperator,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { OperatorClient } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import {
  audioOf,
  closeQuietly,
  openStream,
  streamRequest,
  streamUrl,
} from '../../helpers/stream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

const EL_VOICE = 'FailoverVoiceEL00001';
const FISH_MODEL = 'fffff000111122223333444455556666';
const EL_FORMATS = ['pcm_16000', 'pcm_24000', 'pcm_44100', 'pcm_48000', 'opus_48000_64'];
const FISH_FORMATS = ['pcm_16000', 'pcm_24000', 'pcm_44100', 'opus_48000_64'];

interface VoiceView {
  id: string;
  default_route_id: string;
  offered: { output_formats: string[]; capabilities: string[] } | null;
  routes: { id: string; provider: string; enabled: boolean; is_default: boolean }[];
}

describeEachDialect('voice routes and failover on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let elevenlabs: FakeElevenLabsCatalog;
  let fish: FakeFishAudioCatalog;
  let owner: OperatorClient;
  let voiceId: string;
  let elRoute: string;
  let fishRoute: string;

  const tts = async (format = 'pcm_24000') => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        voice_id: voiceId,
        text: 'Failover keeps talking.',
        output_format: format,
      }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    return { response, bytes, requestId: response.headers.get('x-request-id') ?? '' };
  };
  const ledgerRow = (requestId: string) =>
    handle.db
      .selectFrom('synthesis_requests')
      .select(['route', 'status', 'voice_id', 'output_format'])
      .where('request_id', '=', requestId)
      .executeTakeFirst();
  const synthCalls = (fake: FakeElevenLabsCatalog | FakeFishAudioCatalog, from: number) =>
    fake.requests
      .slice(from)
      .filter((r) => r.path === '/v1/tts' || r.path.startsWith('/v1/text-to-speech/')).length;
  const publicEntry = async () => {
    const response = await fetch(`${server.url}/v1/voices`, {
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    const body = (await response.json()) as { voices: { id: string }[] };
    return body.voices.find((voice) => voice.id === voiceId);
  };

  beforeAll(
    async ({ databases, apis }) => {
      elevenlabs = await FakeElevenLabsCatalog.start({ chunkDelayMs: 1 });
      elevenlabs.own.push({ id: EL_VOICE, name: 'Twin' });
      fish = await FakeFishAudioCatalog.start({ chunkDelayMs: 1 });
      fish.own.push({ id: FISH_MODEL, name: 'Twin on Fish' });
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, {
        env: {
          TTS_RATE_LIMIT_PER_MINUTE: '0',
          // A vendor that never answers is given up on (and failed over) after this long.
          UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '4000',
          ELEVENLABS_API_BASE: elevenlabs.url,
          FISHAUDIO_API_BASE: fish.url,
        },
      });
      ({ client: owner } = await signInOperator(handle, server.url, { workspace: ws }));
      const account = async (provider: string, apiKey: string) =>
        (
          (
            await owner.request('POST', '/provider-accounts', {
              provider,
              label: provider,
              api_key: apiKey,
            })
          ).body as { provider_account: { id: string } }
        ).provider_account.id;
      const elAccount = await account('elevenlabs', elevenlabs.apiKey);
      const fishAccount = await account('fishaudio', fish.apiKey);
      const first = await owner.request('POST', '/voices/import', {
        provider_account_id: elAccount,
        source: 'own',
        provider_voice_id: EL_VOICE,
        model: 'eleven_multilingual_v2',
        permission_confirmed: true,
      });
      const voice = (first.body as { voice: VoiceView }).voice;
      voiceId = voice.id;
      elRoute = voice.routes[0]!.id;
      const second = await owner.request('POST', '/voices/import', {
        provider_account_id: fishAccount,
        source: 'own',
        provider_voice_id: FISH_MODEL,
        model: 's2-pro',
        voice_id: voiceId,
        permission_confirmed: true,
      });
      expect(second.status).toBe(200);
      const both = (second.body as { voice: VoiceView }).voice;
      fishRoute = both.routes.find((route) => route.provider === 'fishaudio')!.id;
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await elevenlabs?.close();
    await fish?.close();
  });

  it('advertises what its default route delivers, and refuses a second attach', async () => {
    expect(await publicEntry()).toEqual({
      id: voiceId,
      name: 'Twin',
      output_formats: EL_FORMATS,
      // eleven_multilingual_v2 has no voice tags.
      capabilities: ['tts', 'word_alignment', 'char_alignment'],
      nsfw: false,
    });
    const outside = await tts('aac_44100_128');
    expect(outside.response.status).toBe(400);
    expect(JSON.parse(outside.bytes.toString())).toMatchObject({ code: 'invalid_request' });

    const accounts = (await owner.request('GET', '/provider-accounts')).body as {
      provider_accounts: { id: string; provider: string }[];
    };
    const before = elevenlabs.requests.length;
    const again = await owner.request('POST', '/voices/import', {
      provider_account_id: accounts.provider_accounts.find((a) => a.provider === 'elevenlabs')!.id,
      source: 'own',
      provider_voice_id: EL_VOICE,
      model: 'eleven_v3',
      voice_id: voiceId,
      permission_confirmed: true,
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict' });
    // Refused before the vendor was asked anything.
    expect(elevenlabs.requests.length).toBe(before);
  });

  it('serves from the default route while it works', async () => {
    const el = elevenlabs.requests.length;
    const fi = fish.requests.length;
    const { response, requestId } = await tts();
    expect(response.status).toBe(200);
    expect(synthCalls(elevenlabs, el)).toBe(1);
    expect(synthCalls(fish, fi)).toBe(0);
    expect((await ledgerRow(requestId))?.route).toBe(
      `elevenlabs:eleven_multilingual_v2:${elRoute}`,
    );
  });

  it('fails over a one-shot request to the next route before any audio, in the same format', async () => {
    for (const failure of [503, 429, 500] as const) {
      elevenlabs.failNext({ kind: 'status', status: failure });
      const fi = fish.requests.length;
      const { response, bytes, requestId } = await tts();
      expect(response.status).toBe(200);
      expect(response.headers.get('x-audio-format')).toBe('pcm_24000');
      expect(bytes.byteLength).toBeGreaterThan(1000);
      expect(synthCalls(fish, fi)).toBe(1);
      expect(await ledgerRow(requestId)).toEqual({
        route: `fishaudio:s2-pro:${fishRoute}`,
        status: 'succeeded',
        voice_id: voiceId,
        output_format: 'pcm_24000',
      });
    }
    expect(
      server.logs().some((line) => line.msg === 'route failed before audio; failing over'),
    ).toBe(true);
  });

  it('fails over when the default route times out before its first byte', async () => {
    elevenlabs.failNext({ kind: 'hang' });
    const fi = fish.requests.length;
    const { response, requestId } = await tts();
    expect(response.status).toBe(200);
    expect(synthCalls(fish, fi)).toBe(1);
    expect((await ledgerRow(requestId))?.route).toBe(`fishaudio:s2-pro:${fishRoute}`);
  });

  it('stays on the route that already spoke: a later segment failing fails the stream', async () => {
    // The second ElevenLabs request of this stream (its second flushed segment) fails.
    elevenlabs.failAt(elevenlabs.requests.length + 1, { kind: 'status', status: 503 });
    const fi = fish.requests.length;
    const client = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    try {
      const result = await streamRequest(
        client,
        { voice_id: voiceId, output_format: 'pcm_24000' },
        ['The first part is spoken.', { flush: true }, 'The second part fails.'],
      );
      const kinds = result.events.map((event) => event.event);
      expect(kinds).toContain('audio');
      expect(kinds.at(-1)).toBe('error');
      expect(result.events.at(-1)).toMatchObject({ code: 'provider_unavailable', retryable: true });
      expect(synthCalls(fish, fi)).toBe(0);
      const requestId = result.events[0]?.request_id as string;
      const row = await waitFor(
        async () => {
          const found = await ledgerRow(requestId);
          return found?.status === 'failed' ? found : undefined;
        },
        { what: 'the stream ledger row to fail' },
      );
      expect(row.route).toBe(`elevenlabs:eleven_multilingual_v2:${elRoute}`);
    } finally {
      await closeQuietly(client);
    }
  });

  it('does not fail over a request the provider rejected (not retryable)', async () => {
    elevenlabs.failNext({ kind: 'status', status: 400 });
    const fi = fish.requests.length;
    const { response, bytes, requestId } = await tts();
    expect(response.status).toBe(502);
    expect(JSON.parse(bytes.toString())).toMatchObject({
      code: 'provider_error',
      retryable: false,
    });
    expect(synthCalls(fish, fi)).toBe(0);
    expect(await ledgerRow(requestId)).toMatchObject({
      route: `elevenlabs:eleven_multilingual_v2:${elRoute}`,
      status: 'failed',
    });
  });

  it('fails over a streaming request the same way, keeping its request id', async () => {
    elevenlabs.failNext({ kind: 'status', status: 503 });
    const fi = fish.requests.length;
    const client = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    try {
      const result = await streamRequest(
        client,
        { voice_id: voiceId, output_format: 'pcm_24000' },
        ['Streaming keeps talking too.'],
      );
      const kinds = result.events.map((event) => event.event);
      expect(kinds.at(-1)).toBe('finish');
      expect(kinds).not.toContain('error');
      expect(audioOf(result.events).byteLength).toBeGreaterThan(1000);
      const requestIds = new Set(result.events.map((event) => event.request_id));
      expect(requestIds.size).toBe(1);
      const requestId = [...requestIds][0] as string;
      expect(synthCalls(fish, fi)).toBe(1);
      const row = await waitFor(
        async () => {
          const found = await ledgerRow(requestId);
          return found?.status === 'succeeded' ? found : undefined;
        },
        { what: 'the stream ledger row to close' },
      );
      expect(row.route).toBe(`fishaudio:s2-pro:${fishRoute}`);
    } finally {
      await closeQuietly(client);
    }
  });

  it('changes the default route without changing the voice id', async () => {
    const changed = await owner.request('PUT', `/voices/${voiceId}/default-route`, {
      route_id: fishRoute,
    });
    expect(changed.status).toBe(200);
    const voice = (changed.body as { voice: VoiceView }).voice;
    expect(voice.id).toBe(voiceId);
    expect(voice.default_route_id).toBe(fishRoute);
    const el = elevenlabs.requests.length;
    const { response, requestId } = await tts();
    expect(response.status).toBe(200);
    expect(synthCalls(elevenlabs, el)).toBe(0);
    expect((await ledgerRow(requestId))?.route).toBe(`fishaudio:s2-pro:${fishRoute}`);
    // Failover now runs the other way.
    fish.failNext({ kind: 'status', status: 503 });
    const after = await tts();
    expect(after.response.status).toBe(200);
    expect((await ledgerRow(after.requestId))?.route).toBe(
      `elevenlabs:eleven_multilingual_v2:${elRoute}`,
    );
    const unknown = await owner.request('PUT', `/voices/${voiceId}/default-route`, {
      route_id: 'vr_unknown',
    });
    expect(unknown.status).toBe(404);
  });

  it('disables a route: hidden from the failover set, kept, and enabled again', async () => {
    const refused = await owner.request('PATCH', `/voices/${voiceId}/routes/${fishRoute}`, {
      enabled: false,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict' });

    const disabled = await owner.request('PATCH', `/voices/${voiceId}/routes/${elRoute}`, {
      enabled: false,
    });
    expect(disabled.status).toBe(200);
    const voice = (disabled.body as { voice: VoiceView }).voice;
    expect(voice.routes.find((route) => route.id === elRoute)).toMatchObject({ enabled: false });
    // Only the Fish route is left: the voice offers what Fish offers, tags included.
    expect(await publicEntry()).toMatchObject({
      output_formats: FISH_FORMATS,
      capabilities: ['tts', 'voice_tags', 'word_alignment'],
    });
    fish.failNext({ kind: 'status', status: 503 });
    const el = elevenlabs.requests.length;
    const failed = await tts();
    expect(failed.response.status).toBe(503);
    expect(JSON.parse(failed.bytes.toString())).toMatchObject({
      code: 'provider_unavailable',
      retryable: true,
    });
    expect(synthCalls(elevenlabs, el)).toBe(0);

    const enabled = await owner.request('PATCH', `/voices/${voiceId}/routes/${elRoute}`, {
      enabled: true,
    });
    expect(enabled.status).toBe(200);
    // The Fish default still describes the voice; the ElevenLabs route only backs it up.
    expect(await publicEntry()).toMatchObject({
      output_formats: FISH_FORMATS,
      capabilities: ['tts', 'voice_tags', 'word_alignment'],
    });
    // Making the ElevenLabs route default again gives its formats back.
    await owner.request('PUT', `/voices/${voiceId}/default-route`, { route_id: elRoute });
    await owner.request('PATCH', `/voices/${voiceId}/routes/${fishRoute}`, { enabled: false });
    expect(await publicEntry()).toMatchObject({ output_formats: EL_FORMATS });
  });
});
