// A voice's catalog entry describes the variant that serves it (its default route), on
// both databases: a Fish Audio S2 default keeps `voice_tags` although another route of the
// voice lacks them. A failover to a route without tags strips them, a failover never
// substitutes a format the fallback cannot deliver, and each response says whether the
// default route or a fallback served, without naming the provider.
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
import { closeQuietly, openStream, streamRequest, streamUrl } from '../../helpers/stream.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

const EL_VOICE = 'VariantVoiceEL000001';
const FISH_MODEL = 'aaaaa000111122223333444455556666';
const EL_FORMATS = ['pcm_16000', 'pcm_24000', 'pcm_44100', 'pcm_48000', 'opus_48000_64'];
const FISH_FORMATS = ['pcm_16000', 'pcm_24000', 'pcm_44100', 'opus_48000_64'];

interface VoiceView {
  id: string;
  routes: { id: string; provider: string }[];
}

type Fake = FakeElevenLabsCatalog | FakeFishAudioCatalog;

describeEachDialect('the catalog describes the serving variant on %s', (dialect) => {
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

  /** The texts a vendor was asked to speak since request number `from`. */
  const spokenTexts = (fake: Fake, from: number) =>
    fake.requests
      .slice(from)
      .filter((r) => r.path === '/v1/tts' || r.path.startsWith('/v1/text-to-speech/'))
      .map((r) => (r.body as { text: string }).text);
  const tts = async (body: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ voice_id: voiceId, output_format: 'pcm_24000', ...body }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    return { response, bytes };
  };
  const stream = async (request: Record<string, unknown>, texts: string[]) => {
    const client = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    try {
      return await streamRequest(
        client,
        { voice_id: voiceId, output_format: 'pcm_24000', ...request },
        texts,
      );
    } finally {
      await closeQuietly(client);
    }
  };
  /** The route the ledger row of a request names. */
  const ledgerRoute = async (response: Response) =>
    (
      await handle.db
        .selectFrom('synthesis_requests')
        .select('route')
        .where('request_id', '=', response.headers.get('x-request-id') ?? '')
        .executeTakeFirstOrThrow()
    ).route;
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
      elevenlabs.own.push({ id: EL_VOICE, name: 'Variant on ElevenLabs' });
      fish = await FakeFishAudioCatalog.start({ chunkDelayMs: 1 });
      fish.own.push({ id: FISH_MODEL, name: 'Variant' });
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, {
        env: {
          TTS_RATE_LIMIT_PER_MINUTE: '0',
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
      // The Fish S2 route comes first, so it is the default route.
      const first = await owner.request('POST', '/voices/import', {
        provider_account_id: await account('fishaudio', fish.apiKey),
        source: 'own',
        provider_voice_id: FISH_MODEL,
        model: 's2-pro',
        permission_confirmed: true,
      });
      const voice = (first.body as { voice: VoiceView }).voice;
      voiceId = voice.id;
      fishRoute = voice.routes[0]!.id;
      const second = await owner.request('POST', '/voices/import', {
        provider_account_id: await account('elevenlabs', elevenlabs.apiKey),
        source: 'own',
        provider_voice_id: EL_VOICE,
        model: 'eleven_multilingual_v2',
        voice_id: voiceId,
        permission_confirmed: true,
      });
      expect(second.status).toBe(200);
      elRoute = (second.body as { voice: VoiceView }).voice.routes.find(
        (route) => route.provider === 'elevenlabs',
      )!.id;
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await elevenlabs?.close();
    await fish?.close();
  });

  it('advertises the default route: a Fish S2 default keeps voice_tags beside a route without them', async () => {
    expect(await publicEntry()).toEqual({
      id: voiceId,
      name: 'Variant',
      output_formats: FISH_FORMATS,
      capabilities: ['tts', 'voice_tags', 'word_alignment'],
      nsfw: false,
    });
  });

  it('applies tags on the default route and says it served', async () => {
    const fi = fish.requests.length;
    const { response } = await tts({
      text: 'Hello [laughs] there.',
      params: { voice_tags: ['whispering'] },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-voice-route')).toBe('default');
    expect(spokenTexts(fish, fi)).toEqual(['[whispering] Hello [laughs] there.']);
    expect(await ledgerRoute(response)).toBe(`fishaudio:s2-pro:${fishRoute}`);
  });

  it('strips tags and cues on a fallback without them, and says a fallback served', async () => {
    fish.failNext({ kind: 'status', status: 503 });
    const el = elevenlabs.requests.length;
    const { response, bytes } = await tts({
      text: 'Hello [laughs] there.',
      params: { voice_tags: ['whispering'] },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-voice-route')).toBe('fallback');
    expect(response.headers.get('x-audio-format')).toBe('pcm_24000');
    expect(bytes.byteLength).toBeGreaterThan(1000);
    expect(spokenTexts(elevenlabs, el)).toEqual(['Hello there.']);
    expect(await ledgerRoute(response)).toBe(`elevenlabs:eleven_multilingual_v2:${elRoute}`);
  });

  it('does not fail a tag-only request over to a route that cannot speak it', async () => {
    fish.failNext({ kind: 'status', status: 503 });
    const el = elevenlabs.requests.length;
    const { response, bytes } = await tts({ text: '', params: { voice_tags: ['sighs'] } });
    expect(response.status).toBe(503);
    expect(JSON.parse(bytes.toString())).toMatchObject({
      code: 'provider_unavailable',
      retryable: true,
    });
    expect(spokenTexts(elevenlabs, el)).toEqual([]);
  });

  it('names the serving route on the stream finish event', async () => {
    const served = await stream({ params: { voice_tags: ['curious'] } }, ['Streaming [sighs] on.']);
    expect(served.events.at(-1)).toMatchObject({ event: 'finish', voice_route: 'default' });

    fish.failNext({ kind: 'status', status: 503 });
    const el = elevenlabs.requests.length;
    const failed = await stream({ params: { voice_tags: ['curious'] } }, ['Streaming [sighs] on.']);
    expect(failed.events.filter((e) => e.event === 'error')).toEqual([]);
    expect(failed.events.at(-1)).toMatchObject({ event: 'finish', voice_route: 'fallback' });
    expect(spokenTexts(elevenlabs, el)).toEqual(['Streaming on.']);
  });

  it('never fails over to a route that cannot deliver the requested format', async () => {
    const changed = await owner.request('PUT', `/voices/${voiceId}/default-route`, {
      route_id: elRoute,
    });
    expect(changed.status).toBe(200);
    expect(await publicEntry()).toMatchObject({
      output_formats: EL_FORMATS,
      capabilities: ['tts', 'word_alignment', 'char_alignment'],
    });
    // pcm_48000: ElevenLabs delivers it, Fish stops at 44.1 kHz.
    const served = await tts({ text: 'High rate.', output_format: 'pcm_48000' });
    expect(served.response.status).toBe(200);
    expect(served.response.headers.get('x-voice-route')).toBe('default');

    elevenlabs.failNext({ kind: 'status', status: 503 });
    const fi = fish.requests.length;
    const refused = await tts({ text: 'High rate.', output_format: 'pcm_48000' });
    expect(refused.response.status).toBe(503);
    expect(JSON.parse(refused.bytes.toString())).toMatchObject({
      code: 'provider_unavailable',
      retryable: true,
    });
    expect(spokenTexts(fish, fi)).toEqual([]);

    const streamed = await (async () => {
      elevenlabs.failNext({ kind: 'status', status: 503 });
      return stream({ output_format: 'pcm_48000' }, ['High rate streamed.']);
    })();
    expect(streamed.events.at(-1)).toMatchObject({
      event: 'error',
      code: 'provider_unavailable',
      retryable: true,
    });
    expect(spokenTexts(fish, fi)).toEqual([]);
  });

  it('applies no tags on a fallback when the voice does not advertise them', async () => {
    // The ElevenLabs v2 default has no tags: the Fish S2 fallback does not add them either.
    elevenlabs.failNext({ kind: 'status', status: 503 });
    const fi = fish.requests.length;
    const { response } = await tts({
      text: 'Quiet [laughs] please.',
      params: { voice_tags: ['whispering'] },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-voice-route')).toBe('fallback');
    expect(spokenTexts(fish, fi)).toEqual(['Quiet please.']);
  });
});
