import { PublicVoices } from '../../../src/voices/public-voices.ts';
import { VoiceStore } from '../../../src/voices/voice-store.ts';
import type { MultipartBody } from '../../fakes/vendor-server.ts';
import { describeEachDialect, expect, it } from '../../fixtures/index.ts';
import {
  createVoice,
  details as detailsOf,
  ENV,
  expectApiError,
  routeOf,
  settled as settledOf,
  useCloningFixture,
} from '../../helpers/cloning.ts';
import { waitFor } from '../../helpers/wait.ts';

describeEachDialect('voice cloning on %s', (dialect) => {
  const fx = useCloningFixture(dialect);
  const details = (voiceId: string) => detailsOf(fx, voiceId);
  const settled = (voiceId: string, what: string) => settledOf(fx, voiceId, what);
  const create = (providers: ('elevenlabs' | 'fishaudio' | 'native')[], name?: string) =>
    createVoice(fx, providers, name);

  it('clones to two vendors and the native model; each finishes on its own, in either order', async () => {
    fx.elevenlabs.holdResponses();
    fx.fish.holdResponses();
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
    fx.elevenlabs.releaseResponses();
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
    fx.fish.releaseResponses();
    const done = await settled(voiceId, 'the Fish Audio route to finish');
    expect(done.voice.routes.map((r) => r.state)).toEqual(['ready', 'ready', 'ready']);
    expect(done.voice.defaultRouteId).toBe(routeOf(done, 'elevenlabs').id);

    // ElevenLabs got one multipart instant clone with the recording named by its sample id.
    const add = fx.elevenlabs.requests.filter((r) => r.path === '/v1/voices/add');
    expect(add).toHaveLength(1);
    const addBody = add[0]?.body as MultipartBody;
    const sampleId = done.samples[0]?.id;
    expect(addBody.files.map((f) => [f.field, f.fileName, f.contentType])).toEqual([
      ['files', `${sampleId}.wav`, 'audio/wav'],
    ]);
    expect(addBody.files[0]?.data.equals(fx.first.audio)).toBe(true);
    const elevenRoute = routeOf(done, 'elevenlabs');
    expect(fx.elevenlabs.library.voices.get(elevenRoute.providerVoiceId)?.name).toBe(
      addBody.fields.name?.[0],
    );
    // Fish Audio got one model with the transcript beside the file.
    const model = fx.fish.library.models.get(routeOf(done, 'fishaudio').providerVoiceId);
    expect(model?.samples).toEqual([
      {
        file_name: `${sampleId}.wav`,
        text: fx.first.transcript,
        size_bytes: fx.first.audio.byteLength,
      },
    ]);
    expect(model?.visibility).toBe('private');
    // The native route is espeak-ng with parameters measured from the recording.
    expect(routeOf(done, 'native').providerVoiceId).toMatch(/^en-us\+m3\/p\d+\/w\d+$/);
    expect(routeOf(done, 'native').outputFormats).not.toContain('pcm_16000');
    expect(routeOf(done, 'fishaudio').capabilities).toEqual([
      'tts',
      'voice_tags',
      'word_alignment',
    ]);
    expect(done.history.map((a) => [a.provider, a.operation, a.state])).toEqual([
      ['elevenlabs', 'create', 'succeeded'],
      ['fishaudio', 'create', 'succeeded'],
      ['native', 'derive', 'succeeded'],
    ]);
    expect(done.history.every((a) => a.requestedBy === 'owner@example.com')).toBe(true);
    expect(
      await new PublicVoices(new VoiceStore(fx.handle.db)).has(fx.ws.workspaceId, ENV, voiceId),
    ).toBe(true);

    // The other order: ElevenLabs held, Fish Audio finishes first.
    fx.elevenlabs.holdResponses();
    const reverse = await create(['elevenlabs', 'fishaudio'], 'Reverse');
    const fishFirst = await waitFor(
      async () => {
        const d = await details(reverse.voice.id);
        return routeOf(d, 'fishaudio').state === 'ready' && d;
      },
      { what: 'Fish Audio to finish while ElevenLabs is held' },
    );
    expect(routeOf(fishFirst, 'elevenlabs').state).toBe('cloning');
    fx.elevenlabs.releaseResponses();
    const both = await settled(reverse.voice.id, 'ElevenLabs to finish');
    expect(both.voice.routes.map((r) => r.state)).toEqual(['ready', 'ready']);
  });

  it('records a rejection in History and fails the route; Try again resubmits the failed group', async () => {
    fx.fish.failNext({ kind: 'status', status: 422 }, 1, { method: 'POST', path: /^\/model$/ });
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
    expect(fx.fish.requests.filter((r) => r.path === '/model' && r.status === 422)).toHaveLength(1);
    // Not servable, and not attachable a second time.
    await expectApiError(
      fx.cloning.cloneToProviders({
        workspaceId: fx.ws.workspaceId,
        environment: ENV,
        voiceId: submitted.voice.id,
        targets: [{ provider: 'fishaudio' }],
        requestedBy: 'x',
      }),
      'conflict',
    );

    const retried = await fx.cloning.retryFailed({
      workspaceId: fx.ws.workspaceId,
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
      fx.cloning.retryFailed({
        workspaceId: fx.ws.workspaceId,
        environment: ENV,
        voiceId: submitted.voice.id,
        requestedBy: 'x',
      }),
      'conflict',
    );
  });

  it('retries a busy vendor with backoff and never creates a second voice', async () => {
    const createdBefore = fx.elevenlabs.library.created;
    fx.elevenlabs.failNext({ kind: 'status', status: 503 }, 2, { method: 'POST', path: /\/add$/ });
    const submitted = await create(['elevenlabs'], 'Busy vendor');
    const done = await settled(submitted.voice.id, 'the clone to finish after retries');
    expect(routeOf(done, 'elevenlabs').state).toBe('ready');
    expect(fx.elevenlabs.library.created).toBe(createdBefore + 1);
    expect(done.history).toHaveLength(1);
  });

  it('fails the route once every retry of a busy vendor failed', async () => {
    const createdBefore = fx.elevenlabs.library.created;
    fx.elevenlabs.failNext({ kind: 'status', status: 503 }, 3, { method: 'POST', path: /\/add$/ });
    const submitted = await create(['elevenlabs'], 'Always busy');
    const done = await settled(submitted.voice.id, 'the retries to run out');
    expect(routeOf(done, 'elevenlabs')).toMatchObject({
      state: 'failed',
      failureSummary: 'The provider was busy; every retry failed.',
    });
    expect(routeOf(done, 'elevenlabs').failureDetail).toContain('status 503');
    expect(done.history.map((a) => a.state)).toEqual(['failed']);
    expect(fx.elevenlabs.library.created).toBe(createdBefore);
    expect(
      await new PublicVoices(new VoiceStore(fx.handle.db)).has(
        fx.ws.workspaceId,
        ENV,
        submitted.voice.id,
      ),
    ).toBe(false);
  });

  it('leaves Update available when a recording arrives while the clone runs', async () => {
    fx.fish.holdResponses();
    const submitted = await create(['fishaudio'], 'Mid-clone recording');
    await waitFor(
      () =>
        fx.fish.requests.some(
          (r) =>
            r.path === '/model' &&
            (r.body as MultipartBody | undefined)?.fields?.title?.[0]?.includes(submitted.voice.id),
        ),
      {
        what: 'the clone request to reach Fish Audio',
      },
    );
    await fx.cloning.addSample({
      workspaceId: fx.ws.workspaceId,
      environment: ENV,
      voiceId: submitted.voice.id,
      sample: fx.second,
      permissionConfirmed: true,
      actor: 'owner@example.com',
    });
    fx.fish.releaseResponses();
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

    const added = await fx.cloning.addSample({
      workspaceId: fx.ws.workspaceId,
      environment: ENV,
      voiceId,
      sample: fx.second,
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
      await new PublicVoices(new VoiceStore(fx.handle.db)).has(fx.ws.workspaceId, ENV, voiceId),
    ).toBe(true);

    const editsBefore = fx.elevenlabs.requests.filter((r) => r.path.endsWith('/edit')).length;
    await fx.cloning.cloneToProviders({
      workspaceId: fx.ws.workspaceId,
      environment: ENV,
      voiceId,
      targets: [{ provider: 'elevenlabs' }, { provider: 'fishaudio' }, { provider: 'native' }],
      requestedBy: 'owner@example.com',
    });
    const after = await settled(voiceId, 'the refresh');
    expect(after.voice.routes.map((r) => r.state)).toEqual(['ready', 'ready', 'ready']);
    // ElevenLabs: the same voice, only the new recording sent by edit.
    expect(routeOf(after, 'elevenlabs').providerVoiceId).toBe(eleven);
    const edits = fx.elevenlabs.requests.filter((r) => r.path === `/v1/voices/${eleven}/edit`);
    expect(edits).toHaveLength(editsBefore + 1);
    expect((edits.at(-1)?.body as MultipartBody | undefined)?.files.map((f) => f.fileName)).toEqual(
      [`${added.id}.wav`],
    );
    expect(fx.elevenlabs.library.voices.get(eleven)?.samples.map((s) => s.file_name)).toEqual([
      `${before.samples[0]?.id}.wav`,
      `${added.id}.wav`,
    ]);
    // Fish Audio: a new model from both recordings; the old one deleted.
    const newFish = routeOf(after, 'fishaudio').providerVoiceId;
    expect(newFish).not.toBe(oldFish);
    expect(fx.fish.library.models.get(newFish)?.samples.map((s) => s.text)).toEqual([
      fx.first.transcript,
      fx.second.transcript,
    ]);
    await waitFor(() => !fx.fish.library.models.has(oldFish), {
      what: 'the old model to be deleted',
    });
    expect(
      after.history.slice(-3).map((a) => [a.provider, a.operation, a.sampleIds.length]),
    ).toEqual([
      ['elevenlabs', 'append', 1],
      ['fishaudio', 'rebuild', 2],
      ['native', 'derive', 2],
    ]);
    expect(routeOf(after, 'elevenlabs').sampleIds).toEqual([before.samples[0]?.id, added.id]);
  });
});
