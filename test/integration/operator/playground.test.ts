import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { wavHeader } from '../../../media/wav.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { FakeElevenLabsCatalog } from '../../fakes/elevenlabs-catalog.ts';
import { FakeFishAudioCatalog } from '../../fakes/fishaudio-catalog.ts';
import {
  addOperator,
  afterAll,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import { creditAccount } from '../../helpers/credit.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient, type OperatorResponse } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

const EL_VOICE = 'PlaygroundVoiceEL001';
const FISH_MODEL = 'aaaa0000bbbb1111cccc2222dddd3333';

interface GenerationView {
  id: string;
  voice_id: string;
  route_id: string | null;
  provider: string;
  model: string | null;
  text: string;
  output_format: string;
  speed: number | null;
  voice_tags: string[] | null;
  tags_skipped: boolean;
  content_type: string;
  duration_ms: number;
  size_bytes: number;
  charge_credits: number;
  request_id: string;
  created_by: string;
  created_at: string;
  audio_url: string;
}
interface Generated {
  generation: GenerationView;
  warnings: string[];
}

/** The body of a 201 answer to a generation (asserting the status). */
function generated(response: OperatorResponse): Generated {
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as Generated;
}

/** The error code of an error answer, asserting its status. */
function errorCode(response: OperatorResponse, status: number): string {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return (response.body as { code: string }).code;
}

describeEachDialect('operator Playground on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let elevenlabs: FakeElevenLabsCatalog;
  let fish: FakeFishAudioCatalog;
  let owner: OperatorClient;
  let member: OperatorClient;
  let stranger: OperatorClient;
  let builtIn: string;
  let imported: string;
  let fishRoute: string;

  /** `POST /v1/tts` with the workspace's key: status, bytes and headers. */
  const tts = async (body: object) => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return { headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  };
  const balance = async () => (await creditAccount(handle, ws.workspaceId)).balance;
  const generate = (client: OperatorClient, voiceId: string, body: object) =>
    client.request('POST', `/voices/${voiceId}/generations`, body);
  const audioOf = (client: OperatorClient, generation: GenerationView) =>
    client.send('GET', generation.audio_url.replace('/operator/api', ''), undefined);

  beforeAll(
    async ({ databases, apis }) => {
      elevenlabs = await FakeElevenLabsCatalog.start({ chunkDelayMs: 1 });
      elevenlabs.own.push({ id: EL_VOICE, name: 'Playground twin' });
      fish = await FakeFishAudioCatalog.start({ chunkDelayMs: 1 });
      fish.own.push({ id: FISH_MODEL, name: 'Playground twin on Fish' });
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      const other = await seedWorkspace(handle);
      await addOperator(handle.db, ws);
      await addOperator(handle.db, ws, { role: 'member' });
      await addOperator(handle.db, other, { email: 'stranger@example.com' });
      server = await apis.start(database, {
        env: {
          TTS_RATE_LIMIT_PER_MINUTE: '0',
          ELEVENLABS_API_BASE: elevenlabs.url,
          FISHAUDIO_API_BASE: fish.url,
        },
      });
      owner = await signInAs(server.url, 'owner@example.com');
      member = await signInAs(server.url, 'member@example.com');
      stranger = await signInAs(server.url, 'stranger@example.com');

      const voices = await fetch(`${server.url}/v1/voices`, {
        headers: { authorization: `Bearer ${ws.productionKey}` },
      });
      builtIn = ((await voices.json()) as { voices: { id: string }[] }).voices[0]!.id;

      const account = async (provider: string, apiKey: string) => {
        const response = await owner.request('POST', '/provider-accounts', {
          provider,
          label: provider,
          api_key: apiKey,
        });
        return (response.body as { provider_account: { id: string } }).provider_account.id;
      };
      const first = await owner.request('POST', '/voices/import', {
        provider_account_id: await account('elevenlabs', elevenlabs.apiKey),
        source: 'own',
        provider_voice_id: EL_VOICE,
        model: 'eleven_multilingual_v2',
        permission_confirmed: true,
      });
      imported = (first.body as { voice: { id: string } }).voice.id;
      const second = await owner.request('POST', '/voices/import', {
        provider_account_id: await account('fishaudio', fish.apiKey),
        source: 'own',
        provider_voice_id: FISH_MODEL,
        model: 's2-pro',
        voice_id: imported,
        permission_confirmed: true,
      });
      expect(second.status).toBe(200);
      const routes = (second.body as { voice: { routes: { id: string; provider: string }[] } })
        .voice.routes;
      fishRoute = routes.find((route) => route.provider === 'fishaudio')!.id;
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await elevenlabs?.close();
    await fish?.close();
  });

  it('a member generates PCM: a WAV of the very /v1/tts samples, stored, charged the same', async () => {
    const text = 'The playground speaks like the API.';
    const before = await balance();
    const { generation, warnings } = generated(
      await generate(member, builtIn, { text, output_format: 'pcm' }),
    );
    const afterPlayground = await balance();
    const reference = await tts({ voice_id: builtIn, text, output_format: 'pcm_24000' });
    const afterTts = await balance();

    expect(warnings).toEqual([]);
    const playgroundCharge = before - afterPlayground;
    expect(playgroundCharge).toBeGreaterThan(0);
    expect(playgroundCharge).toBe(afterPlayground - afterTts);
    expect(generation.charge_credits).toBe(Number(reference.headers.get('x-charge-credits')));
    expect(generation).toMatchObject({
      voice_id: builtIn,
      route_id: null,
      provider: 'native',
      text,
      output_format: 'pcm_24000',
      speed: null,
      voice_tags: null,
      tags_skipped: false,
      content_type: 'audio/wav',
      duration_ms: Number(reference.headers.get('x-audio-duration-ms')),
      size_bytes: reference.bytes.byteLength + 44,
      created_by: 'member@example.com',
      audio_url: `/operator/api/voices/${builtIn}/generations/${generation.id}/audio`,
    });

    const audio = await audioOf(member, generation);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    expect(audio.headers.get('cache-control')).toBe('private, no-store');
    expect(audio.headers.get('x-content-type-options')).toBe('nosniff');
    const expected = Buffer.concat([
      wavHeader(24_000, reference.bytes.byteLength),
      reference.bytes,
    ]);
    expect(Buffer.compare(audio.body as Buffer, expected)).toBe(0);

    const row = await handle.db
      .selectFrom('voice_generations')
      .select('object_key')
      .where('id', '=', generation.id)
      .executeTakeFirstOrThrow();
    const stored = readFileSync(path.join(database.dataDir, 'audio', row.object_key));
    expect(Buffer.compare(stored, expected)).toBe(0);

    const ledger = await handle.db
      .selectFrom('synthesis_requests')
      .select(['api_key_id', 'operator_email', 'status', 'cost_millicredits', 'voice_id'])
      .where('request_id', '=', generation.request_id)
      .executeTakeFirstOrThrow();
    expect({ ...ledger, cost_millicredits: Number(ledger.cost_millicredits) }).toEqual({
      api_key_id: null,
      operator_email: 'member@example.com',
      status: 'succeeded',
      cost_millicredits: playgroundCharge,
      voice_id: builtIn,
    });
  });

  it('Opus and AAC with a Speed override; History lists them newest first', async () => {
    const text = 'Faster, please.';
    const opus = generated(
      await generate(owner, builtIn, { text, output_format: 'opus', speed: 1.5 }),
    ).generation;
    const aac = generated(
      await generate(owner, builtIn, { text, output_format: 'aac', speed: 1.5 }),
    ).generation;
    expect([opus.output_format, opus.content_type, opus.speed]).toEqual([
      'opus_48000_64',
      'audio/ogg; codecs=opus',
      1.5,
    ]);
    expect([aac.output_format, aac.content_type]).toEqual(['aac_44100_128', 'audio/aac']);
    const opusAudio = (await audioOf(owner, opus)).body as Buffer;
    expect(opusAudio.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(opusAudio.byteLength).toBe(opus.size_bytes);
    const aacAudio = (await audioOf(owner, aac)).body as Buffer;
    expect(aacAudio.readUInt16BE(0) & 0xfff6).toBe(0xfff0);

    // The speed reaches the engine exactly as params.speed of /v1/tts does.
    const pcm = generated(
      await generate(owner, builtIn, { text, output_format: 'pcm', speed: 1.5 }),
    ).generation;
    const reference = await tts({
      voice_id: builtIn,
      text,
      output_format: 'pcm_24000',
      params: { speed: 1.5 },
    });
    const pcmAudio = (await audioOf(owner, pcm)).body as Buffer;
    expect(Buffer.compare(pcmAudio.subarray(44), reference.bytes)).toBe(0);

    const history = await member.request('GET', `/voices/${builtIn}/generations`);
    expect(history.status).toBe(200);
    const ids = (history.body as { generations: GenerationView[] }).generations.map((g) => g.id);
    expect(ids.slice(0, 3)).toEqual([pcm.id, aac.id, opus.id]);
    expect(ids).toHaveLength(4);
    const limited = await member.request('GET', `/voices/${builtIn}/generations?limit=1`);
    expect((limited.body as { generations: GenerationView[] }).generations).toEqual([pcm]);
  });

  it('skips tags on a voice without voice_tags and says so, charged like /v1/tts', async () => {
    const text = '[whispers] Keep this between us.';
    const before = await balance();
    const { generation, warnings } = generated(
      await generate(member, builtIn, { text, output_format: 'pcm', voice_tags: ['calm'] }),
    );
    const afterPlayground = await balance();
    const reference = await tts({
      voice_id: builtIn,
      text,
      output_format: 'pcm_24000',
      params: { voice_tags: ['calm'] },
    });
    expect(before - afterPlayground).toBe(afterPlayground - (await balance()));
    expect(warnings).toEqual(['tags_skipped']);
    expect(generation).toMatchObject({ text, voice_tags: ['calm'], tags_skipped: true });
    const audio = (await audioOf(member, generation)).body as Buffer;
    expect(Buffer.compare(audio.subarray(44), reference.bytes)).toBe(0);
  });

  it('route_id pins a route: Fish S2 applies the tags, the default route skips them', async () => {
    const text = '[whispers] Hello from the playground.';
    const fishFrom = fish.requests.length;
    const onFish = generated(
      await generate(member, imported, {
        text,
        output_format: 'pcm',
        route_id: fishRoute,
        voice_tags: ['calm'],
      }),
    );
    expect(onFish.warnings).toEqual([]);
    expect(onFish.generation).toMatchObject({
      route_id: fishRoute,
      provider: 'fishaudio',
      model: 's2-pro',
      tags_skipped: false,
    });
    const fishTexts = fish.requests
      .slice(fishFrom)
      .filter((request) => request.path === '/v1/tts')
      .map((request) => (request.body as { text: string }).text);
    expect(fishTexts).toEqual([`[calm] ${text}`]);

    const elFrom = elevenlabs.requests.length;
    const onDefault = generated(await generate(member, imported, { text, output_format: 'opus' }));
    expect(onDefault.warnings).toEqual(['tags_skipped']);
    expect(onDefault.generation).toMatchObject({
      provider: 'elevenlabs',
      model: 'eleven_multilingual_v2',
      tags_skipped: true,
    });
    const elTexts = elevenlabs.requests
      .slice(elFrom)
      .filter((request) => request.path.startsWith('/v1/text-to-speech/'))
      .map((request) => (request.body as { text: string }).text);
    expect(elTexts).toEqual(['Hello from the playground.']);
  });

  it('refuses what /v1/tts refuses, with the spec error codes', async () => {
    const valid = { text: 'Hello.', output_format: 'pcm' };
    expect(errorCode(await generate(member, 'voice_doesNotExist0000', valid), 404)).toBe(
      'voice_not_found',
    );
    expect(errorCode(await generate(stranger, imported, valid), 404)).toBe('voice_not_found');
    for (const output_format of ['mp3', 'pcm_24000', 'wav']) {
      expect(errorCode(await generate(member, builtIn, { ...valid, output_format }), 400)).toBe(
        'invalid_request',
      );
    }
    expect(errorCode(await generate(member, builtIn, { ...valid, speed: 3 }), 400)).toBe(
      'invalid_request',
    );
    expect(errorCode(await generate(member, builtIn, { ...valid, text: '[sighs]' }), 400)).toBe(
      'invalid_request',
    );
    // AAC is not offered by the vendor routes of the imported voice.
    expect(
      errorCode(await generate(member, imported, { ...valid, output_format: 'aac' }), 400),
    ).toBe('invalid_request');
    expect(
      errorCode(await generate(member, imported, { ...valid, route_id: 'vr_nope' }), 404),
    ).toBe('not_found');
    const anonymous = new OperatorClient(server.url);
    expect(errorCode(await generate(anonymous, builtIn, valid), 401)).toBe('unauthorized');
    expect(errorCode(await stranger.request('GET', `/voices/${imported}/generations`), 404)).toBe(
      'voice_not_found',
    );
    expect(
      errorCode(await member.request('GET', `/voices/${builtIn}/generations/gen_nope/audio`), 404),
    ).toBe('not_found');
  });

  it('refuses a workspace without credit with 402 and records the failed attempt', async () => {
    const broke = await seedWorkspace(handle, { credits: 0 });
    await addOperator(handle.db, broke, { email: 'broke@example.com', role: 'member' });
    const client = await signInAs(server.url, 'broke@example.com');
    const response = await generate(client, builtIn, { text: 'Hello.', output_format: 'pcm' });
    expect(errorCode(response, 402)).toBe('insufficient_credit');
    const rows = await handle.db
      .selectFrom('synthesis_requests')
      .select(['status', 'error_code', 'operator_email', 'api_key_id'])
      .where('workspace_id', '=', broke.workspaceId)
      .execute();
    expect(rows).toEqual([
      {
        status: 'failed',
        error_code: 'insufficient_credit',
        operator_email: 'broke@example.com',
        api_key_id: null,
      },
    ]);
    const history = await client.request('GET', `/voices/${builtIn}/generations`);
    expect(history.body).toEqual({ generations: [] });
  });

  it('deletes a generation with its audio: its maker, or an Owner; not another member', async () => {
    const make = async (client: OperatorClient, text: string) => {
      const { generation } = generated(
        await generate(client, builtIn, { text, output_format: 'pcm' }),
      );
      const row = await handle.db
        .selectFrom('voice_generations')
        .select('object_key')
        .where('id', '=', generation.id)
        .executeTakeFirstOrThrow();
      return { generation, file: path.join(database.dataDir, 'audio', row.object_key) };
    };
    const mine = await make(member, 'Mine to delete.');
    const owners = await make(owner, 'The owner keeps this one.');
    const path_ = (id: string) => `/voices/${builtIn}/generations/${id}`;

    expect(errorCode(await member.request('DELETE', path_(owners.generation.id)), 403)).toBe(
      'forbidden',
    );
    expect(errorCode(await stranger.request('DELETE', path_(mine.generation.id)), 404)).toBe(
      'not_found',
    );
    const deleted = await member.request('DELETE', path_(mine.generation.id));
    expect(deleted.status).toBe(200);
    expect((deleted.body as { generation: GenerationView }).generation).toEqual(mine.generation);
    expect(existsSync(mine.file)).toBe(false);
    expect(errorCode(await audioOf(member, mine.generation), 404)).toBe('not_found');
    expect(errorCode(await member.request('DELETE', path_(mine.generation.id)), 404)).toBe(
      'not_found',
    );
    // The ledger row that charged it stays: the charge happened.
    const ledger = await handle.db
      .selectFrom('synthesis_requests')
      .select('status')
      .where('request_id', '=', mine.generation.request_id)
      .executeTakeFirstOrThrow();
    expect(ledger.status).toBe('succeeded');

    // An Owner deletes anyone's; the others stay, with their audio.
    const members = await make(member, 'The owner clears this one.');
    expect((await owner.request('DELETE', path_(members.generation.id))).status).toBe(200);
    expect(existsSync(members.file)).toBe(false);
    expect(existsSync(owners.file)).toBe(true);
    const history = await member.request('GET', `/voices/${builtIn}/generations`);
    const ids = (history.body as { generations: GenerationView[] }).generations.map((g) => g.id);
    expect(ids).toContain(owners.generation.id);
    expect(ids).not.toContain(mine.generation.id);
    expect(ids).not.toContain(members.generation.id);
  });

  it('Auto Tag tags plain text, and leaves it alone for a voice that cannot apply tags', async () => {
    const text = 'Haha, you made it! Did you bring the cake?';
    const tagged = '[laughs] Haha, you made it! [curious] Did you bring the cake?';
    const plain = await member.request('POST', '/auto-tag', { text });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ text: tagged, warnings: [] });
    const native = await member.request('POST', '/auto-tag', { text, voice_id: builtIn });
    expect(native.body).toEqual({ text, warnings: ['tags_unsupported'] });
    const fishOnly = await member.request('POST', '/auto-tag', {
      text,
      voice_id: imported,
      route_id: fishRoute,
    });
    expect(fishOnly.body).toEqual({ text: tagged, warnings: [] });
    expect(
      errorCode(await member.request('POST', '/auto-tag', { text, voice_id: 'voice_nope' }), 404),
    ).toBe('voice_not_found');
    expect(
      errorCode(await member.request('POST', '/auto-tag', { text, route_id: fishRoute }), 400),
    ).toBe('invalid_request');

    const tags = await member.request('GET', '/voice-tags?search=WH');
    expect(tags.body).toEqual({
      tags: [{ tag: 'whispers', kind: 'delivery', description: 'Whispered, quiet' }],
    });
  });
});
