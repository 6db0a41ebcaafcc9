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
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

const EL_OWN = [
  { id: 'OwnVoiceAAAAAAAAAAA1', name: 'Alice narrator' },
  { id: 'OwnVoiceBBBBBBBBBBB2', name: 'Bob announcer' },
  { id: 'OwnVoiceCCCCCCCCCCC3', name: 'Alicia calm' },
];
const EL_SHARED = [
  { id: 'SharedVoiceDDDDDDDD4', name: 'Library Deep', publicOwnerId: 'owner0123456789abcdef' },
];
const FISH_PUBLIC = [{ id: '802e3bc2b27e49c2995d23ef70e6ac89', name: 'Public narrator' }];
const FISH_OWN = [{ id: 'aaaabbbbccccdddd0000111122223333', name: 'My fish voice' }];

interface VoiceView {
  id: string;
  name: string;
  default_route_id: string;
  offered: { output_formats: string[]; capabilities: string[] } | null;
  routes: {
    id: string;
    provider: string;
    model: string;
    provider_voice_id: string;
    state: string;
  }[];
}

describeEachDialect('operator import from vendor catalogs on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let elevenlabs: FakeElevenLabsCatalog;
  let fish: FakeFishAudioCatalog;
  let owner: OperatorClient;
  let elAccount: string;
  let fishAccount: string;

  const tts = (voiceId: string, format = 'pcm_24000') =>
    fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        voice_id: voiceId,
        text: 'Hello from an import.',
        output_format: format,
      }),
    });

  beforeAll(
    async ({ databases, apis }) => {
      elevenlabs = await FakeElevenLabsCatalog.start({ chunkDelayMs: 1 });
      elevenlabs.own.push(...EL_OWN);
      elevenlabs.shared.push(...EL_SHARED);
      fish = await FakeFishAudioCatalog.start({ chunkDelayMs: 1 });
      fish.public.push(...FISH_PUBLIC);
      fish.own.push(...FISH_OWN);
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
      const add = async (provider: string, apiKey: string) => {
        const response = await owner.request('POST', '/provider-accounts', {
          provider,
          label: provider,
          api_key: apiKey,
        });
        expect(response.status).toBe(201);
        return (response.body as { provider_account: { id: string } }).provider_account.id;
      };
      elAccount = await add('elevenlabs', elevenlabs.apiKey);
      fishAccount = await add('fishaudio', fish.apiKey);
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await elevenlabs?.close();
    await fish?.close();
  });

  it('browses the account’s own ElevenLabs voices with search and paging', async () => {
    const first = await owner.request(
      'GET',
      `/provider-accounts/${elAccount}/catalog?source=own&search=ali&page_size=1`,
    );
    expect(first.status).toBe(200);
    const page1 = first.body as {
      provider: string;
      voices: { name: string }[];
      next_page_token: string;
    };
    expect(page1.provider).toBe('elevenlabs');
    expect(page1.voices.map((voice) => voice.name)).toEqual(['Alice narrator']);
    expect(page1.next_page_token).toEqual(expect.any(String));
    const second = await owner.request(
      'GET',
      `/provider-accounts/${elAccount}/catalog?source=own&search=ali&page_size=1&page_token=${page1.next_page_token}`,
    );
    expect(second.body).toEqual({
      provider: 'elevenlabs',
      voices: [
        {
          provider_voice_id: 'OwnVoiceCCCCCCCCCCC3',
          name: 'Alicia calm',
          description: null,
          languages: [],
          preview_url: 'https://storage.example/preview/OwnVoiceCCCCCCCCCCC3.mp3',
          public_owner_id: null,
        },
      ],
      next_page_token: null,
    });
    const listed = elevenlabs.requests.filter((r) => r.path === '/v2/voices');
    expect(listed.at(-1)?.query).toEqual({
      page_size: '1',
      search: 'ali',
      next_page_token: page1.next_page_token,
    });
  });

  it('browses the public libraries of both vendors', async () => {
    const shared = await owner.request(
      'GET',
      `/provider-accounts/${elAccount}/catalog?source=public`,
    );
    expect(shared.body).toMatchObject({
      voices: [
        {
          provider_voice_id: 'SharedVoiceDDDDDDDD4',
          name: 'Library Deep',
          public_owner_id: 'owner0123456789abcdef',
        },
      ],
      next_page_token: null,
    });
    const fishPublic = await owner.request(
      'GET',
      `/provider-accounts/${fishAccount}/catalog?source=public&search=narr`,
    );
    expect(fishPublic.body).toMatchObject({
      provider: 'fishaudio',
      voices: [
        { provider_voice_id: FISH_PUBLIC[0]!.id, name: 'Public narrator', languages: ['en'] },
      ],
      next_page_token: null,
    });
    const fishOwn = await owner.request(
      'GET',
      `/provider-accounts/${fishAccount}/catalog?source=own`,
    );
    expect((fishOwn.body as { voices: { name: string }[] }).voices.map((v) => v.name)).toEqual([
      'My fish voice',
    ]);
    expect(fish.requests.filter((r) => r.path === '/model').at(-1)?.query).toMatchObject({
      self: 'true',
      page_number: '1',
    });
  });

  it('imports an own ElevenLabs voice, usable through POST /v1/tts at once', async () => {
    const refused = await owner.request('POST', '/voices/import', {
      provider_account_id: elAccount,
      source: 'own',
      provider_voice_id: 'OwnVoiceBBBBBBBBBBB2',
      model: 'eleven_multilingual_v2',
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('permission_confirmed');

    const imported = await owner.request('POST', '/voices/import', {
      provider_account_id: elAccount,
      source: 'own',
      provider_voice_id: 'OwnVoiceBBBBBBBBBBB2',
      model: 'eleven_multilingual_v2',
      permission_confirmed: true,
    });
    expect(imported.status).toBe(201);
    const voice = (imported.body as { voice: VoiceView }).voice;
    expect(voice.name).toBe('Bob announcer');
    expect(voice.routes).toEqual([
      expect.objectContaining({
        provider: 'elevenlabs',
        model: 'eleven_multilingual_v2',
        provider_voice_id: 'OwnVoiceBBBBBBBBBBB2',
        state: 'ready',
        enabled: true,
        is_default: true,
      }),
    ]);
    const before = elevenlabs.requests.length;
    const response = await tts(voice.id);
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const synth = elevenlabs.requests.slice(before).find((r) => r.method === 'POST');
    expect(synth?.path).toBe('/v1/text-to-speech/OwnVoiceBBBBBBBBBBB2/stream');

    const missing = await owner.request('POST', '/voices/import', {
      provider_account_id: elAccount,
      source: 'own',
      provider_voice_id: 'NotInTheAccount00000',
      model: 'eleven_multilingual_v2',
      permission_confirmed: true,
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'invalid_request' });
  });

  it('imports from the public libraries: ElevenLabs adds the shared voice, Fish Audio uses the model', async () => {
    const shared = await owner.request('POST', '/voices/import', {
      provider_account_id: elAccount,
      source: 'public',
      provider_voice_id: 'SharedVoiceDDDDDDDD4',
      public_owner_id: 'owner0123456789abcdef',
      model: 'eleven_v3',
      name: 'Deep',
      permission_confirmed: true,
    });
    expect(shared.status).toBe(201);
    const sharedVoice = (shared.body as { voice: VoiceView }).voice;
    const addCall = elevenlabs.requests.find((r) => r.path.startsWith('/v1/voices/add/'));
    expect(addCall?.path).toBe('/v1/voices/add/owner0123456789abcdef/SharedVoiceDDDDDDDD4');
    expect(addCall?.body).toEqual({ new_name: 'Deep' });
    const addedId = elevenlabs.own.at(-1)!.id;
    expect(sharedVoice.routes[0]?.provider_voice_id).toBe(addedId);
    const before = elevenlabs.requests.length;
    expect((await tts(sharedVoice.id)).status).toBe(200);
    expect(elevenlabs.requests.slice(before).map((r) => r.path)).toContain(
      `/v1/text-to-speech/${addedId}/stream`,
    );

    const fishImport = await owner.request('POST', '/voices/import', {
      provider_account_id: fishAccount,
      source: 'public',
      provider_voice_id: FISH_PUBLIC[0]!.id,
      model: 's2-pro',
      permission_confirmed: true,
    });
    expect(fishImport.status).toBe(201);
    const fishVoice = (fishImport.body as { voice: VoiceView }).voice;
    expect(fishVoice.name).toBe('Public narrator');
    const fishBefore = fish.requests.length;
    expect((await tts(fishVoice.id)).status).toBe(200);
    const fishTts = fish.requests.slice(fishBefore).find((r) => r.path === '/v1/tts');
    expect((fishTts?.body as { reference_id?: string } | undefined)?.reference_id).toBe(
      FISH_PUBLIC[0]!.id,
    );

    const catalog = (await (
      await fetch(`${server.url}/v1/voices`, {
        headers: { authorization: `Bearer ${ws.productionKey}` },
      })
    ).json()) as { voices: { id: string }[] };
    const ids = catalog.voices.map((voice) => voice.id);
    expect(ids).toEqual(expect.arrayContaining([sharedVoice.id, fishVoice.id]));
    // The public catalog never names the vendor voice.
    expect(JSON.stringify(catalog)).not.toContain(addedId);
  });
  it('attaches a provider to a voice once, even when two imports race', async () => {
    const base = await owner.request('POST', '/voices/import', {
      provider_account_id: elAccount,
      source: 'own',
      provider_voice_id: 'OwnVoiceAAAAAAAAAAA1',
      model: 'eleven_multilingual_v2',
      permission_confirmed: true,
    });
    const voiceId = (base.body as { voice: VoiceView }).voice.id;
    const attach = () =>
      owner.request('POST', '/voices/import', {
        provider_account_id: fishAccount,
        source: 'own',
        provider_voice_id: FISH_OWN[0]!.id,
        model: 's2-pro',
        voice_id: voiceId,
        permission_confirmed: true,
      });
    const results = await Promise.all([attach(), attach()]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    const voice = (await owner.request('GET', `/voices/${voiceId}`)).body as { voice: VoiceView };
    expect(voice.voice.routes.map((route) => route.provider)).toEqual(['elevenlabs', 'fishaudio']);
  });
});
