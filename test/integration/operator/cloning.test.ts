import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { SampleInput } from '../../../src/voices/cloning/types.ts';
import { FakeElevenLabs } from '../../fakes/elevenlabs.ts';
import { FakeFishAudio } from '../../fakes/fishaudio.ts';
import {
  addOperator,
  afterAll,
  afterEach,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient, type OperatorResponse } from '../../helpers/operator.ts';
import {
  created,
  type DetailsView,
  history,
  meta,
  recording,
  routeOf,
  type SampleView,
  type VoiceView,
} from '../../helpers/operator-cloning.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { speechSample } from '../../helpers/voice-samples.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 60_000 }) });

describeEachDialect('operator cloning API on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let elevenlabs: FakeElevenLabs;
  let fish: FakeFishAudio;
  let owner: OperatorClient;
  let member: OperatorClient;
  let stranger: OperatorClient;
  let first: SampleInput;
  let second: SampleInput;

  const create = (client: OperatorClient, name: string, providers: string[]) =>
    client.upload(
      '/voices',
      {
        name,
        permission_confirmed: true,
        targets: providers.map((provider) => ({ provider })),
        recordings: [meta(first)],
      },
      [recording(first)],
    );
  const addSample = (client: OperatorClient, voiceId: string, sample: SampleInput) =>
    client.upload(`/voices/${voiceId}/samples`, { ...meta(sample), permission_confirmed: true }, [
      recording(sample),
    ]);
  const getVoice = async (voiceId: string) => {
    const response = await owner.request('GET', `/voices/${voiceId}`);
    expect(response.status).toBe(200);
    return (response.body as { voice: VoiceView }).voice;
  };
  const settled = (voiceId: string, what: string) =>
    waitFor(
      async () => {
        const voice = await getVoice(voiceId);
        return voice.routes.every((r) => r.state !== 'cloning') && voice;
      },
      { what },
    );
  const tts = (voiceId: string) =>
    fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        voice_id: voiceId,
        text: 'A cloned voice.',
        output_format: 'pcm_24000',
      }),
    });

  beforeAll(
    async ({ databases, apis }) => {
      elevenlabs = await FakeElevenLabs.start({ knownVoicesOnly: true });
      fish = await FakeFishAudio.start({ knownVoicesOnly: true });
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
          ELEVENLABS_API_KEY: elevenlabs.apiKey,
          FISHAUDIO_API_BASE: fish.url,
          FISHAUDIO_API_KEY: fish.apiKey,
          CLONE_JOB_ATTEMPTS: '3',
          CLONE_JOB_BACKOFF_MS: '100',
        },
      });
      owner = await signInAs(server.url, 'owner@example.com');
      member = await signInAs(server.url, 'member@example.com');
      stranger = await signInAs(server.url, 'stranger@example.com');
      first = await speechSample('Hello there, this is my voice for the cloning test.', 'm3');
      second = await speechSample('A second recording, added after the voice was cloned.', 'm3');
    },
    budget({ extraMs: 120_000 }),
  );
  afterEach(() => {
    elevenlabs?.releaseResponses();
    fish?.releaseResponses();
  });
  afterAll(async () => {
    await elevenlabs?.close();
    await fish?.close();
  });

  it('clones to two vendors and the native model; the states show through GET', async () => {
    elevenlabs.holdResponses();
    fish.holdResponses();
    const submitted = created(
      await create(owner, 'Narrator', ['elevenlabs', 'fishaudio', 'native']),
    );
    const voiceId = submitted.voice.id;
    expect(voiceId).toMatch(/^voice_[0-9A-Za-z]{20}$/);
    expect(submitted.voice.routes.map((r) => [r.provider, r.state === 'cloning'])).toEqual([
      ['elevenlabs', true],
      ['fishaudio', true],
      ['native', submitted.voice.routes[2]?.state === 'cloning'],
    ]);
    expect(submitted.samples).toEqual([
      expect.objectContaining({
        language: first.language,
        transcript: first.transcript,
        content_type: 'audio/wav',
        size_bytes: first.audio.byteLength,
        permission_confirmed_by: 'owner@example.com',
      }),
    ]);
    const seen = await getVoice(voiceId);
    expect(routeOf(seen, 'elevenlabs').state).toBe('cloning');
    expect(seen.offered).toBeNull();

    elevenlabs.releaseResponses();
    const elevenReady = await waitFor(
      async () => {
        const voice = await getVoice(voiceId);
        const ready = ['elevenlabs', 'native'].every((p) => routeOf(voice, p).state === 'ready');
        return ready && voice;
      },
      { what: 'the ElevenLabs and native routes to be Ready while Fish Audio is held' },
    );
    expect(routeOf(elevenReady, 'fishaudio').state).toBe('cloning');
    fish.releaseResponses();
    const done = await settled(voiceId, 'the Fish Audio route to finish');
    expect(done.routes.map((r) => r.state)).toEqual(['ready', 'ready', 'ready']);
    expect(done.default_route_id).toBe(routeOf(done, 'elevenlabs').id);
    expect(done.offered?.output_formats).toContain('pcm_24000');
    expect(elevenlabs.requests.filter((r) => r.path === '/v1/voices/add')).toHaveLength(1);

    // Every role browses: samples (metadata, then the audio itself) and History.
    const samples = await member.request('GET', `/voices/${voiceId}/samples`);
    expect(samples.status).toBe(200);
    const [sample] = (samples.body as { samples: SampleView[] }).samples;
    expect(sample?.transcript).toBe(first.transcript);
    const audio = await member.request('GET', `/voices/${voiceId}/samples/${sample?.id}/audio`);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    expect(audio.headers.get('cache-control')).toBe('private, no-store');
    expect((audio.body as Buffer).equals(first.audio)).toBe(true);
    const attempts = await history(member, voiceId);
    expect(attempts.map((a) => [a.provider, a.operation, a.state, a.requested_by])).toEqual([
      ['elevenlabs', 'create', 'succeeded', 'owner@example.com'],
      ['fishaudio', 'create', 'succeeded', 'owner@example.com'],
      ['native', 'derive', 'succeeded', 'owner@example.com'],
    ]);
    // The new voice speaks through the public API on its default route.
    const spoken = await tts(voiceId);
    expect(spoken.status).toBe(200);
    expect((await spoken.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });

  it('fails a route the vendor rejects; Try again resubmits the failed group', async () => {
    fish.failNext({ kind: 'status', status: 422 }, 1, { method: 'POST', path: /^\/model$/ });
    const submitted = created(await create(owner, 'Rejected once', ['elevenlabs', 'fishaudio']));
    const voiceId = submitted.voice.id;
    const failed = await settled(voiceId, 'both routes to finish');
    expect(routeOf(failed, 'elevenlabs').state).toBe('ready');
    expect(routeOf(failed, 'fishaudio')).toMatchObject({
      state: 'failed',
      failure_summary: 'The provider rejected the recordings.',
    });
    const [, rejected] = await history(owner, voiceId);
    expect(rejected).toMatchObject({ provider: 'fishaudio', state: 'failed' });
    expect(rejected?.failure_detail).toContain('status 422');
    // A failed provider is retried, not attached again.
    const again = await owner.request('POST', `/voices/${voiceId}/clone`, {
      targets: [{ provider: 'fishaudio' }],
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict' });

    const retried = await owner.request('POST', `/voices/${voiceId}/retry`);
    expect(retried.status).toBe(200);
    expect(routeOf((retried.body as DetailsView).voice, 'fishaudio').state).toBe('cloning');
    const done = await settled(voiceId, 'the retried route to finish');
    expect(done.routes.map((r) => r.state)).toEqual(['ready', 'ready']);
    expect((await history(owner, voiceId)).map((a) => [a.provider, a.state])).toEqual([
      ['elevenlabs', 'succeeded'],
      ['fishaudio', 'failed'],
      ['fishaudio', 'succeeded'],
    ]);
    expect((await owner.request('POST', `/voices/${voiceId}/retry`)).status).toBe(409);
  });

  it('turns Ready into Update available after a new sample; a refresh appends it', async () => {
    const growing = created(await create(owner, 'Growing', ['elevenlabs']));
    const voiceId = growing.voice.id;
    const ready = await settled(voiceId, 'the first clone');
    const routeId = routeOf(ready, 'elevenlabs').id;
    expect(
      (await owner.request('POST', `/voices/${voiceId}/routes/${routeId}/refresh`)).status,
    ).toBe(409);

    const added = await addSample(owner, voiceId, second);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const sampleId = (added.body as { sample: SampleView }).sample.id;
    expect(routeOf(await getVoice(voiceId), 'elevenlabs').state).toBe('update_available');
    // Still served while Update available.
    expect((await tts(voiceId)).status).toBe(200);

    const refreshed = await owner.request('POST', `/voices/${voiceId}/routes/${routeId}/refresh`);
    expect(refreshed.status).toBe(200);
    const done = await settled(voiceId, 'the refresh');
    expect(routeOf(done, 'elevenlabs').state).toBe('ready');
    const last = (await history(owner, voiceId)).at(-1);
    expect(last).toMatchObject({ operation: 'append', state: 'succeeded', sample_ids: [sampleId] });

    // Clone to a further provider: a new route built from every recording.
    const further = await owner.request('POST', `/voices/${voiceId}/clone`, {
      targets: [{ provider: 'fishaudio' }],
    });
    expect(further.status).toBe(200);
    expect(routeOf((further.body as DetailsView).voice, 'fishaudio').state).toBe('cloning');
    const both = await settled(voiceId, 'the Fish Audio clone');
    expect(both.routes.map((r) => [r.provider, r.state])).toEqual([
      ['elevenlabs', 'ready'],
      ['fishaudio', 'ready'],
    ]);
    expect((await history(owner, voiceId)).at(-1)).toMatchObject({
      provider: 'fishaudio',
      operation: 'create',
      state: 'succeeded',
      sample_ids: [growing.samples[0]?.id, sampleId],
    });
  });

  it('refuses bad uploads with the error object', async () => {
    const voiceId = created(await create(owner, 'Uploads', ['native'])).voice.id;
    const unconfirmed = await owner.upload(
      `/voices/${voiceId}/samples`,
      { ...meta(second), permission_confirmed: false },
      [recording(second)],
    );
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.body).toMatchObject({ code: 'invalid_request' });
    const json = await owner.request('POST', `/voices/${voiceId}/samples`, meta(second));
    expect(json.status).toBe(415);
    expect(json.body).toMatchObject({ code: 'invalid_request' });
    const noFile = await owner.upload(
      `/voices/${voiceId}/samples`,
      { ...meta(second), permission_confirmed: true },
      [],
    );
    expect(noFile.status).toBe(400);
    const notAudio = await owner.upload(
      `/voices/${voiceId}/samples`,
      { ...meta(second), permission_confirmed: true },
      [
        {
          field: 'recording',
          fileName: 'a.wav',
          contentType: 'audio/wav',
          data: Buffer.from('no'),
        },
      ],
    );
    expect(notAudio.status).toBe(400);
    const missing = await owner.upload(
      '/voices',
      {
        name: 'Two files',
        permission_confirmed: true,
        targets: [{ provider: 'native' }],
        recordings: [meta(first)],
      },
      [recording(first), recording(second)],
    );
    expect(missing.status).toBe(400);
    const samples = await owner.request('GET', `/voices/${voiceId}/samples`);
    expect((samples.body as { samples: SampleView[] }).samples).toHaveLength(1);
  });

  it('blocks a route out of service and unblocks it', async () => {
    const voiceId = created(await create(owner, 'Blockable', ['elevenlabs'])).voice.id;
    const ready = await settled(voiceId, 'the clone');
    const routeId = routeOf(ready, 'elevenlabs').id;
    const blocked = await owner.request('POST', `/voices/${voiceId}/routes/${routeId}/block`, {
      reason: 'Consent withdrawn',
    });
    expect(blocked.status).toBe(200);
    expect(routeOf((blocked.body as { voice: VoiceView }).voice, 'elevenlabs')).toMatchObject({
      state: 'blocked',
      blocked_by: 'operator',
      failure_summary: 'Consent withdrawn',
    });
    const refused = await tts(voiceId);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: 'voice_not_found' });

    const unblocked = await owner.request('POST', `/voices/${voiceId}/routes/${routeId}/unblock`);
    expect(unblocked.status).toBe(200);
    expect(routeOf((unblocked.body as { voice: VoiceView }).voice, 'elevenlabs').state).toBe(
      'ready',
    );
    expect((await tts(voiceId)).status).toBe(200);
    expect(
      (await owner.request('POST', `/voices/${voiceId}/routes/${routeId}/unblock`)).status,
    ).toBe(409);
  });

  it('lets a Member browse but not write, refuses cross-site writes, hides other workspaces', async () => {
    const voiceId = created(await create(owner, 'Guarded', ['elevenlabs'])).voice.id;
    const ready = await settled(voiceId, 'the clone');
    const routeId = routeOf(ready, 'elevenlabs').id;
    const writes: [string, (c: OperatorClient) => Promise<OperatorResponse>][] = [
      ['create', (c) => create(c, 'Nope', ['native'])],
      ['add sample', (c) => addSample(c, voiceId, second)],
      [
        'clone',
        (c) =>
          c.request('POST', `/voices/${voiceId}/clone`, { targets: [{ provider: 'fishaudio' }] }),
      ],
      ['refresh', (c) => c.request('POST', `/voices/${voiceId}/routes/${routeId}/refresh`)],
      ['retry', (c) => c.request('POST', `/voices/${voiceId}/retry`)],
      [
        'block',
        (c) => c.request('POST', `/voices/${voiceId}/routes/${routeId}/block`, { reason: 'x' }),
      ],
      ['unblock', (c) => c.request('POST', `/voices/${voiceId}/routes/${routeId}/unblock`)],
    ];
    const crossSite = new OperatorClient(server.url, 'https://evil.example');
    crossSite.cookie = owner.cookie;
    const noOrigin = new OperatorClient(server.url, null);
    noOrigin.cookie = owner.cookie;
    for (const [what, write] of writes) {
      for (const [who, client] of [
        ['member', member],
        ['cross-site owner', crossSite],
        ['owner without Origin', noOrigin],
      ] as const) {
        const response = await write(client);
        expect([what, who, response.status]).toEqual([what, who, 403]);
        expect(response.body).toMatchObject({ code: 'forbidden' });
      }
    }
    // Nothing changed: one sample, one attempt, the route still Ready.
    expect((await history(member, voiceId)).length).toBe(1);
    expect(routeOf(await getVoice(voiceId), 'elevenlabs').state).toBe('ready');

    // Another workspace's owner reaches neither the voice, its samples, nor their audio.
    const samples = await owner.request('GET', `/voices/${voiceId}/samples`);
    const sampleId = (samples.body as { samples: SampleView[] }).samples[0]?.id;
    for (const path of [
      `/voices/${voiceId}`,
      `/voices/${voiceId}/samples`,
      `/voices/${voiceId}/samples/${sampleId}/audio`,
      `/voices/${voiceId}/history`,
    ]) {
      const response = await stranger.request('GET', path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.body).toMatchObject({ code: 'voice_not_found' });
    }
    const foreignUpload = await addSample(stranger, voiceId, second);
    expect(foreignUpload.status).toBe(404);
    const foreignBlock = await stranger.request(
      'POST',
      `/voices/${voiceId}/routes/${routeId}/block`,
      { reason: 'x' },
    );
    expect(foreignBlock.status).toBe(404);
    expect(routeOf(await getVoice(voiceId), 'elevenlabs').state).toBe('ready');
  });
});
