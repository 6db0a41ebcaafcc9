import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { ApiError } from '../../../src/errors.ts';
import { openVoiceCloning, startVoiceCloningWorker } from '../../../src/jobs/voice-cloning.ts';
import type { VoiceCloning } from '../../../src/voices/cloning/service.ts';
import type { SampleInput, VoiceDetails } from '../../../src/voices/cloning/types.ts';
import { PublicVoices } from '../../../src/voices/public-voices.ts';
import { servingRoute, VoiceStore } from '../../../src/voices/voice-store.ts';
import { FakeElevenLabs } from '../../fakes/elevenlabs.ts';
import { FakeFishAudio } from '../../fakes/fishaudio.ts';
import type { MultipartBody } from '../../fakes/vendor-server.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { serviceEnv } from '../../helpers/server.ts';
import { speechSample } from '../../helpers/voice-samples.ts';
import { waitFor } from '../../helpers/wait.ts';

const ENV = 'production' as const;

async function expectApiError(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
  return error as ApiError;
}

describe.each(DIALECTS)('voice cloning on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let elevenlabs: FakeElevenLabs;
  let fish: FakeFishAudio;
  let cloning: VoiceCloning;
  let close: () => Promise<void>;
  let first: SampleInput;
  let second: SampleInput;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    handle = await openTestDatabase(database);
    ws = await seedWorkspace(handle);
    other = await seedWorkspace(handle);
    elevenlabs = await FakeElevenLabs.start({ knownVoicesOnly: true });
    fish = await FakeFishAudio.start({ knownVoicesOnly: true });
    const config = loadConfig(
      serviceEnv(database, {
        ELEVENLABS_API_BASE: elevenlabs.url,
        ELEVENLABS_API_KEY: elevenlabs.apiKey,
        FISHAUDIO_API_BASE: fish.url,
        FISHAUDIO_API_KEY: fish.apiKey,
        CLONE_JOB_ATTEMPTS: '3',
        CLONE_JOB_BACKOFF_MS: '100',
      }),
    );
    const logger = pino({ level: 'silent' });
    const opened = openVoiceCloning({ config, db: handle.db, logger });
    const worker = startVoiceCloningWorker({ config, db: handle.db, logger });
    cloning = opened.cloning;
    close = async () => {
      await worker.close();
      await opened.close();
    };
    first = await speechSample('Hello there, this is my voice for the cloning test.', 'm3');
    second = await speechSample('A second recording, added after the voice was cloned.', 'm3');
  });

  afterEach(() => {
    // A failed test must not leave answers held for the next one.
    elevenlabs?.releaseResponses();
    fish?.releaseResponses();
  });

  afterAll(async () => {
    await close?.();
    await elevenlabs?.close();
    await fish?.close();
    await handle?.close();
    await database?.drop();
  });

  const details = (voiceId: string) => cloning.details(ws.workspaceId, ENV, voiceId);
  const routeOf = (d: VoiceDetails, provider: string) => {
    const route = d.voice.routes.find((r) => r.provider === provider);
    if (!route) throw new Error(`no ${provider} route`);
    return route;
  };
  const settled = (voiceId: string, what: string) =>
    waitFor(
      async () => {
        const d = await details(voiceId);
        return d.voice.routes.every((r) => r.state !== 'cloning') && d;
      },
      { what },
    );
  const create = (providers: ('elevenlabs' | 'fishaudio' | 'native')[], name = 'Narrator') =>
    cloning.createAndClone({
      workspaceId: ws.workspaceId,
      environment: ENV,
      name,
      samples: [first],
      permissionConfirmed: true,
      targets: providers.map((provider) => ({ provider })),
      actor: 'owner@example.com',
    });

  it('clones to two vendors and the native model; each finishes on its own, in either order', async () => {
    elevenlabs.holdResponses();
    fish.holdResponses();
    const submitted = await create(['elevenlabs', 'fishaudio', 'native']);
    // The voice id exists from the submission on; the held vendors' routes are Cloning
    // (the native derivation may already have finished).
    expect(submitted.voice.id).toMatch(/^voice_[0-9A-Za-z]{20}$/);
    expect(submitted.voice.routes.map((r) => r.provider)).toEqual([
      'elevenlabs',
      'fishaudio',
      'native',
    ]);
    expect(routeOf(submitted, 'elevenlabs').state).toBe('cloning');
    expect(routeOf(submitted, 'fishaudio').state).toBe('cloning');
    expect(['cloning', 'ready']).toContain(routeOf(submitted, 'native').state);
    elevenlabs.releaseResponses();
    const voiceId = submitted.voice.id;
    const elevenReady = await waitFor(
      async () => {
        const d = await details(voiceId);
        return (
          routeOf(d, 'elevenlabs').state === 'ready' && routeOf(d, 'native').state === 'ready' && d
        );
      },
      { what: 'ElevenLabs and native routes to be ready while Fish Audio is held' },
    );
    expect(routeOf(elevenReady, 'fishaudio').state).toBe('cloning');
    fish.releaseResponses();
    const done = await settled(voiceId, 'the Fish Audio route to finish');
    expect(done.voice.routes.map((r) => r.state)).toEqual(['ready', 'ready', 'ready']);
    expect(done.voice.defaultRouteId).toBe(routeOf(done, 'elevenlabs').id);

    // ElevenLabs got one multipart instant clone with the recording named by its sample id.
    const add = elevenlabs.requests.filter((r) => r.path === '/v1/voices/add');
    expect(add).toHaveLength(1);
    const addBody = add[0]?.body as MultipartBody;
    const sampleId = done.samples[0]?.id;
    expect(addBody.files.map((f) => [f.field, f.fileName, f.contentType])).toEqual([
      ['files', `${sampleId}.wav`, 'audio/wav'],
    ]);
    expect(addBody.files[0]?.data.equals(first.audio)).toBe(true);
    const elevenRoute = routeOf(done, 'elevenlabs');
    expect(elevenlabs.library.voices.get(elevenRoute.providerVoiceId)?.name).toBe(
      addBody.fields.name?.[0],
    );
    // Fish Audio got one model with the transcript beside the file.
    const model = fish.library.models.get(routeOf(done, 'fishaudio').providerVoiceId);
    expect(model?.samples).toEqual([
      { file_name: `${sampleId}.wav`, text: first.transcript, size_bytes: first.audio.byteLength },
    ]);
    expect(model?.visibility).toBe('private');
    // The native route is espeak-ng with parameters measured from the recording.
    expect(routeOf(done, 'native').providerVoiceId).toMatch(/^en-us\+m3\/p\d+\/w\d+$/);
    expect(routeOf(done, 'native').outputFormats).not.toContain('pcm_16000');
    expect(routeOf(done, 'fishaudio').capabilities).toEqual(['tts', 'voice_tags']);
    expect(done.history.map((a) => [a.provider, a.operation, a.state])).toEqual([
      ['elevenlabs', 'create', 'succeeded'],
      ['fishaudio', 'create', 'succeeded'],
      ['native', 'derive', 'succeeded'],
    ]);
    expect(done.history.every((a) => a.requestedBy === 'owner@example.com')).toBe(true);
    expect(
      await new PublicVoices(new VoiceStore(handle.db)).has(ws.workspaceId, ENV, voiceId),
    ).toBe(true);

    // The other order: ElevenLabs held, Fish Audio finishes first.
    elevenlabs.holdResponses();
    const reverse = await create(['elevenlabs', 'fishaudio'], 'Reverse');
    const fishFirst = await waitFor(
      async () => {
        const d = await details(reverse.voice.id);
        return routeOf(d, 'fishaudio').state === 'ready' && d;
      },
      { what: 'Fish Audio to finish while ElevenLabs is held' },
    );
    expect(routeOf(fishFirst, 'elevenlabs').state).toBe('cloning');
    elevenlabs.releaseResponses();
    const both = await settled(reverse.voice.id, 'ElevenLabs to finish');
    expect(both.voice.routes.map((r) => r.state)).toEqual(['ready', 'ready']);
  });

  it('records a rejection in History and fails the route; Try again resubmits the failed group', async () => {
    fish.failNext({ kind: 'status', status: 422 }, 1, { method: 'POST', path: /^\/model$/ });
    const submitted = await create(['elevenlabs', 'fishaudio'], 'Rejected once');
    const failed = await settled(submitted.voice.id, 'both routes to finish');
    expect(routeOf(failed, 'elevenlabs').state).toBe('ready');
    const fishRoute = routeOf(failed, 'fishaudio');
    expect(fishRoute.state).toBe('failed');
    expect(fishRoute.failureSummary).toBe('The provider rejected the recordings.');
    expect(fishRoute.failureDetail).toContain('status 422');
    const attempt = failed.history.find((a) => a.provider === 'fishaudio');
    expect(attempt).toMatchObject({
      state: 'failed',
      failureSummary: 'The provider rejected the recordings.',
    });
    // A rejection is not retried: one POST /model for this voice.
    expect(fish.requests.filter((r) => r.path === '/model' && r.status === 422)).toHaveLength(1);
    // Not servable, and not attachable a second time.
    await expectApiError(
      cloning.cloneToProviders({
        workspaceId: ws.workspaceId,
        environment: ENV,
        voiceId: submitted.voice.id,
        targets: [{ provider: 'fishaudio' }],
        requestedBy: 'x',
      }),
      'conflict',
    );

    const retried = await cloning.retryFailed({
      workspaceId: ws.workspaceId,
      environment: ENV,
      voiceId: submitted.voice.id,
      requestedBy: 'admin@example.com',
    });
    expect(routeOf(retried, 'fishaudio').state).toBe('cloning');
    const done = await settled(submitted.voice.id, 'the retried route to finish');
    expect(done.voice.routes.map((r) => r.state)).toEqual(['ready', 'ready']);
    // Only the failed group was resubmitted: ElevenLabs has its one attempt.
    expect(done.history.map((a) => [a.provider, a.state])).toEqual([
      ['elevenlabs', 'succeeded'],
      ['fishaudio', 'failed'],
      ['fishaudio', 'succeeded'],
    ]);
    await expectApiError(
      cloning.retryFailed({
        workspaceId: ws.workspaceId,
        environment: ENV,
        voiceId: submitted.voice.id,
        requestedBy: 'x',
      }),
      'conflict',
    );
  });

  it('retries a busy vendor with backoff and never creates a second voice', async () => {
    const createdBefore = elevenlabs.library.created;
    elevenlabs.failNext({ kind: 'status', status: 503 }, 2, { method: 'POST', path: /\/add$/ });
    const submitted = await create(['elevenlabs'], 'Busy vendor');
    const done = await settled(submitted.voice.id, 'the clone to finish after retries');
    expect(routeOf(done, 'elevenlabs').state).toBe('ready');
    expect(elevenlabs.library.created).toBe(createdBefore + 1);
    expect(done.history).toHaveLength(1);
  });

  it('fails the route once every retry of a busy vendor failed', async () => {
    const createdBefore = elevenlabs.library.created;
    elevenlabs.failNext({ kind: 'status', status: 503 }, 3, { method: 'POST', path: /\/add$/ });
    const submitted = await create(['elevenlabs'], 'Always busy');
    const done = await settled(submitted.voice.id, 'the retries to run out');
    expect(routeOf(done, 'elevenlabs')).toMatchObject({
      state: 'failed',
      failureSummary: 'The provider was busy; every retry failed.',
    });
    expect(routeOf(done, 'elevenlabs').failureDetail).toContain('status 503');
    expect(done.history.map((a) => a.state)).toEqual(['failed']);
    expect(elevenlabs.library.created).toBe(createdBefore);
    expect(
      await new PublicVoices(new VoiceStore(handle.db)).has(
        ws.workspaceId,
        ENV,
        submitted.voice.id,
      ),
    ).toBe(false);
  });

  it('leaves Update available when a recording arrives while the clone runs', async () => {
    fish.holdResponses();
    const submitted = await create(['fishaudio'], 'Mid-clone recording');
    await waitFor(
      () =>
        fish.requests.some(
          (r) =>
            r.path === '/model' &&
            (r.body as MultipartBody | undefined)?.fields?.title?.[0]?.includes(submitted.voice.id),
        ),
      {
        what: 'the clone request to reach Fish Audio',
      },
    );
    await cloning.addSample({
      workspaceId: ws.workspaceId,
      environment: ENV,
      voiceId: submitted.voice.id,
      sample: second,
      permissionConfirmed: true,
      actor: 'owner@example.com',
    });
    fish.releaseResponses();
    const done = await settled(submitted.voice.id, 'the clone');
    expect(routeOf(done, 'fishaudio').state).toBe('update_available');
    expect(routeOf(done, 'fishaudio').sampleIds).toEqual([done.samples[0]?.id]);
  });

  it('turns Ready into Update available after a new recording; a refresh appends on ElevenLabs and rebuilds on Fish Audio', async () => {
    const submitted = await create(['elevenlabs', 'fishaudio', 'native'], 'Refreshed');
    const voiceId = submitted.voice.id;
    const before = await settled(voiceId, 'the first clones');
    const oldFish = routeOf(before, 'fishaudio').providerVoiceId;
    const eleven = routeOf(before, 'elevenlabs').providerVoiceId;

    const added = await cloning.addSample({
      workspaceId: ws.workspaceId,
      environment: ENV,
      voiceId,
      sample: second,
      permissionConfirmed: true,
      actor: 'owner@example.com',
    });
    const stale = await details(voiceId);
    expect(stale.voice.routes.map((r) => r.state)).toEqual([
      'update_available',
      'update_available',
      'update_available',
    ]);
    // Update available still serves with the recordings it has.
    expect(
      await new PublicVoices(new VoiceStore(handle.db)).has(ws.workspaceId, ENV, voiceId),
    ).toBe(true);

    const editsBefore = elevenlabs.requests.filter((r) => r.path.endsWith('/edit')).length;
    await cloning.cloneToProviders({
      workspaceId: ws.workspaceId,
      environment: ENV,
      voiceId,
      targets: [{ provider: 'elevenlabs' }, { provider: 'fishaudio' }, { provider: 'native' }],
      requestedBy: 'owner@example.com',
    });
    const after = await settled(voiceId, 'the refresh');
    expect(after.voice.routes.map((r) => r.state)).toEqual(['ready', 'ready', 'ready']);
    // ElevenLabs: the same voice, only the new recording sent by edit.
    expect(routeOf(after, 'elevenlabs').providerVoiceId).toBe(eleven);
    const edits = elevenlabs.requests.filter((r) => r.path === `/v1/voices/${eleven}/edit`);
    expect(edits).toHaveLength(editsBefore + 1);
    expect((edits.at(-1)?.body as MultipartBody | undefined)?.files.map((f) => f.fileName)).toEqual(
      [`${added.id}.wav`],
    );
    expect(elevenlabs.library.voices.get(eleven)?.samples.map((s) => s.file_name)).toEqual([
      `${before.samples[0]?.id}.wav`,
      `${added.id}.wav`,
    ]);
    // Fish Audio: a new model from both recordings; the old one deleted.
    const newFish = routeOf(after, 'fishaudio').providerVoiceId;
    expect(newFish).not.toBe(oldFish);
    expect(fish.library.models.get(newFish)?.samples.map((s) => s.text)).toEqual([
      first.transcript,
      second.transcript,
    ]);
    await waitFor(() => !fish.library.models.has(oldFish), { what: 'the old model to be deleted' });
    expect(
      after.history.slice(-3).map((a) => [a.provider, a.operation, a.sampleIds.length]),
    ).toEqual([
      ['elevenlabs', 'append', 1],
      ['fishaudio', 'rebuild', 2],
      ['native', 'derive', 2],
    ]);
    expect(routeOf(after, 'elevenlabs').sampleIds).toEqual([before.samples[0]?.id, added.id]);
  });

  it('changes the default route without changing voice_id, hides and shows routes, blocks and unblocks', async () => {
    const submitted = await create(['elevenlabs', 'fishaudio'], 'Routes');
    const voiceId = submitted.voice.id;
    const ready = await settled(voiceId, 'the clones');
    const scope = { workspaceId: ws.workspaceId, environment: ENV, voiceId };
    const fishId = routeOf(ready, 'fishaudio').id;
    const elevenId = routeOf(ready, 'elevenlabs').id;
    expect(ready.voice.defaultRouteId).toBe(elevenId);

    await expectApiError(cloning.routes.setRouteEnabled(scope, elevenId, false), 'conflict');
    const hidden = await cloning.routes.setRouteEnabled(scope, fishId, false);
    expect(hidden.routes.find((r) => r.id === fishId)?.enabled).toBe(false);
    // Making the hidden route the default enables it; the voice id stays.
    const moved = await cloning.routes.setDefaultRoute(scope, fishId);
    expect(moved.id).toBe(voiceId);
    expect(moved.defaultRouteId).toBe(fishId);
    expect(moved.routes.find((r) => r.id === fishId)?.enabled).toBe(true);
    const elevenHidden = await cloning.routes.setRouteEnabled(scope, elevenId, false);
    expect(elevenHidden.routes.find((r) => r.id === elevenId)?.enabled).toBe(false);
    expect(
      (await cloning.routes.setRouteEnabled(scope, elevenId, true)).routes.every((r) => r.enabled),
    ).toBe(true);

    const blocked = await cloning.routes.blockRoute(scope, fishId, 'Consent withdrawn');
    expect(blocked.routes.find((r) => r.id === fishId)).toMatchObject({
      state: 'blocked',
      blockedBy: 'operator',
      failureSummary: 'Consent withdrawn',
    });
    await expectApiError(cloning.routes.setDefaultRoute(scope, fishId), 'conflict');
    await expectApiError(
      cloning.cloneToProviders({
        ...scope,
        targets: [{ provider: 'fishaudio' }],
        requestedBy: 'x',
      }),
      'conflict',
    );
    const unblocked = await cloning.routes.unblockRoute(scope, fishId);
    expect(unblocked.routes.find((r) => r.id === fishId)?.state).toBe('ready');
    await expectApiError(cloning.routes.unblockRoute(scope, fishId), 'conflict');
    await expectApiError(
      cloning.cloneToProviders({
        ...scope,
        targets: [{ provider: 'elevenlabs' }],
        requestedBy: 'x',
      }),
      'conflict',
    );
  });

  it('blocks a route the vendor holds back until the speaker verifies it', async () => {
    elevenlabs.library.requireVerification = true;
    try {
      const submitted = await create(['elevenlabs', 'native'], 'Needs verification');
      const done = await settled(submitted.voice.id, 'the clones');
      expect(routeOf(done, 'elevenlabs')).toMatchObject({
        state: 'blocked',
        blockedBy: 'provider',
        failureSummary:
          'ElevenLabs requires the speaker to verify this voice before it can be used.',
      });
      expect(routeOf(done, 'native').state).toBe('ready');
      // The default (ElevenLabs) is blocked: the voice is served by its native route.
      const scope = { workspaceId: ws.workspaceId, environment: ENV, voiceId: submitted.voice.id };
      const store = new VoiceStore(handle.db);
      const stored = await store.find(ws.workspaceId, ENV, submitted.voice.id);
      expect(stored && servingRoute(stored)?.provider).toBe('native');
      const unblocked = await cloning.routes.unblockRoute(scope, routeOf(done, 'elevenlabs').id);
      expect(unblocked.routes.find((r) => r.provider === 'elevenlabs')?.state).toBe('ready');
    } finally {
      elevenlabs.library.requireVerification = false;
    }
  });

  it('validates recordings before accepting them and keeps them inside their workspace', async () => {
    const base = {
      workspaceId: ws.workspaceId,
      environment: ENV,
      name: 'Invalid',
      permissionConfirmed: true,
      targets: [{ provider: 'native' as const }],
      actor: 'owner@example.com',
    };
    const silent = await speechSample('', 'm3', { silenceMs: 3000 });
    await expectApiError(cloning.createAndClone({ ...base, samples: [silent] }), 'invalid_request');
    const telephone = await speechSample('Narrow band audio.', 'm3', { rateHz: 8000 });
    const low = await expectApiError(
      cloning.createAndClone({ ...base, samples: [telephone] }),
      'invalid_request',
    );
    expect(low.message).toContain('8000 Hz');
    const short = await speechSample('Hi.', 'm3', { trimMs: 400 });
    await expectApiError(cloning.createAndClone({ ...base, samples: [short] }), 'invalid_request');
    await expectApiError(
      cloning.createAndClone({ ...base, samples: [{ ...first, contentType: 'text/plain' }] }),
      'unsupported_media_type',
    );
    await expectApiError(
      cloning.createAndClone({ ...base, samples: [{ ...first, contentType: 'audio/mpeg' }] }),
      'unsupported_media_type',
    );
    await expectApiError(
      cloning.createAndClone({
        ...base,
        samples: [{ ...first, audio: Buffer.alloc(10 * 1024 * 1024 + 1) }],
      }),
      'payload_too_large',
    );
    await expectApiError(
      cloning.createAndClone({
        ...base,
        samples: [{ ...first, audio: Buffer.from('RIFF not really') }],
      }),
      'invalid_request',
    );
    await expectApiError(
      cloning.createAndClone({ ...base, samples: [{ ...first, transcript: ' ' }] }),
      'invalid_request',
    );
    await expectApiError(
      cloning.createAndClone({ ...base, samples: [first], permissionConfirmed: false }),
      'invalid_request',
    );
    await expectApiError(cloning.createAndClone({ ...base, samples: [] }), 'invalid_request');
    // Nothing half-created by the refusals.
    expect(
      (await new VoiceStore(handle.db).list(ws.workspaceId, ENV)).some((v) => v.name === 'Invalid'),
    ).toBe(false);

    const accepted = await cloning.createAndClone({ ...base, name: 'Mine', samples: [first] });
    const sampleId = accepted.samples[0]?.id ?? '';
    const scope = { workspaceId: ws.workspaceId, environment: ENV, voiceId: accepted.voice.id };
    expect((await cloning.readSample(scope, sampleId)).equals(first.audio)).toBe(true);
    await expectApiError(
      cloning.readSample({ ...scope, workspaceId: other.workspaceId }, sampleId),
      'voice_not_found',
    );
    await expectApiError(
      cloning.readSample({ ...scope, environment: 'development' }, sampleId),
      'voice_not_found',
    );
    await expectApiError(
      cloning.details(other.workspaceId, ENV, accepted.voice.id),
      'voice_not_found',
    );
    await settled(accepted.voice.id, 'the native derivation');
  });
});
