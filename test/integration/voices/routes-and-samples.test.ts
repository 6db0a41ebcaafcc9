import { sampleLanguages } from '../../../src/voices/cloning/sample-languages.ts';
import { servingRoute, VoiceStore } from '../../../src/voices/voice-store.ts';
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
import { speechSample } from '../../helpers/voice-samples.ts';

describeEachDialect('voice routes and samples on %s', (dialect) => {
  const fx = useCloningFixture(dialect);
  const _details = (voiceId: string) => detailsOf(fx, voiceId);
  const settled = (voiceId: string, what: string) => settledOf(fx, voiceId, what);
  const create = (providers: ('elevenlabs' | 'fishaudio' | 'native')[], name?: string) =>
    createVoice(fx, providers, name);

  it('changes the default route without changing voice_id, hides and shows routes, blocks and unblocks', async () => {
    const submitted = await create(['elevenlabs', 'fishaudio'], 'Routes');
    const voiceId = submitted.voice.id;
    const ready = await settled(voiceId, 'the clones');
    const scope = { workspaceId: fx.ws.workspaceId, environment: ENV, voiceId };
    const fishId = routeOf(ready, 'fishaudio').id;
    const elevenId = routeOf(ready, 'elevenlabs').id;
    expect(ready.voice.defaultRouteId).toBe(elevenId);

    await expectApiError(fx.cloning.routes.setRouteEnabled(scope, elevenId, false), 'conflict');
    const hidden = await fx.cloning.routes.setRouteEnabled(scope, fishId, false);
    expect(hidden.routes.find((r) => r.id === fishId)?.enabled).toBe(false);
    // Making the hidden route the default enables it; the voice id stays.
    const moved = await fx.cloning.routes.setDefaultRoute(scope, fishId);
    expect(moved.id).toBe(voiceId);
    expect(moved.defaultRouteId).toBe(fishId);
    expect(moved.routes.find((r) => r.id === fishId)?.enabled).toBe(true);
    const elevenHidden = await fx.cloning.routes.setRouteEnabled(scope, elevenId, false);
    expect(elevenHidden.routes.find((r) => r.id === elevenId)?.enabled).toBe(false);
    expect(
      (await fx.cloning.routes.setRouteEnabled(scope, elevenId, true)).routes.every(
        (r) => r.enabled,
      ),
    ).toBe(true);

    const blocked = await fx.cloning.routes.blockRoute(scope, fishId, 'Consent withdrawn');
    expect(blocked.routes.find((r) => r.id === fishId)).toMatchObject({
      state: 'blocked',
      blockedBy: 'operator',
      failureSummary: 'Consent withdrawn',
    });
    await expectApiError(fx.cloning.routes.setDefaultRoute(scope, fishId), 'conflict');
    await expectApiError(
      fx.cloning.cloneToProviders({
        ...scope,
        targets: [{ provider: 'fishaudio' }],
        requestedBy: 'x',
      }),
      'conflict',
    );
    const unblocked = await fx.cloning.routes.unblockRoute(scope, fishId);
    expect(unblocked.routes.find((r) => r.id === fishId)?.state).toBe('ready');
    await expectApiError(fx.cloning.routes.unblockRoute(scope, fishId), 'conflict');
    await expectApiError(
      fx.cloning.cloneToProviders({
        ...scope,
        targets: [{ provider: 'elevenlabs' }],
        requestedBy: 'x',
      }),
      'conflict',
    );
  });

  it('blocks a route the vendor holds back until the speaker verifies it', async () => {
    fx.elevenlabs.library.requireVerification = true;
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
      const scope = {
        workspaceId: fx.ws.workspaceId,
        environment: ENV,
        voiceId: submitted.voice.id,
      };
      const store = new VoiceStore(fx.handle.db);
      const stored = await store.find(fx.ws.workspaceId, ENV, submitted.voice.id);
      expect(stored && servingRoute(stored)?.provider).toBe('native');
      const unblocked = await fx.cloning.routes.unblockRoute(scope, routeOf(done, 'elevenlabs').id);
      expect(unblocked.routes.find((r) => r.provider === 'elevenlabs')?.state).toBe('ready');
    } finally {
      fx.elevenlabs.library.requireVerification = false;
    }
  });

  it('validates recordings before accepting them and keeps them inside their workspace', async () => {
    const base = {
      workspaceId: fx.ws.workspaceId,
      environment: ENV,
      name: 'Invalid',
      permissionConfirmed: true,
      targets: [{ provider: 'native' as const }],
      actor: 'owner@example.com',
    };
    const silent = await speechSample('', 'm3', { silenceMs: 3000 });
    await expectApiError(
      fx.cloning.createAndClone({ ...base, samples: [silent] }),
      'invalid_request',
    );
    const telephone = await speechSample('Narrow band audio.', 'm3', { rateHz: 8000 });
    const low = await expectApiError(
      fx.cloning.createAndClone({ ...base, samples: [telephone] }),
      'invalid_request',
    );
    expect(low.message).toContain('8000 Hz');
    const short = await speechSample('Hi.', 'm3', { trimMs: 400 });
    await expectApiError(
      fx.cloning.createAndClone({ ...base, samples: [short] }),
      'invalid_request',
    );
    expect(
      (
        await expectApiError(
          fx.cloning.createAndClone({
            ...base,
            samples: [{ ...fx.first, contentType: 'text/plain' }],
          }),
          'invalid_request',
        )
      ).status,
    ).toBe(415);
    expect(
      (
        await expectApiError(
          fx.cloning.createAndClone({
            ...base,
            samples: [{ ...fx.first, contentType: 'audio/mpeg' }],
          }),
          'invalid_request',
        )
      ).status,
    ).toBe(415);
    const huge = await expectApiError(
      fx.cloning.createAndClone({
        ...base,
        samples: [{ ...fx.first, audio: Buffer.alloc(10 * 1024 * 1024 + 1) }],
      }),
      'invalid_request',
    );
    expect(huge.status).toBe(413);
    await expectApiError(
      fx.cloning.createAndClone({
        ...base,
        samples: [{ ...fx.first, audio: Buffer.from('RIFF not really') }],
      }),
      'invalid_request',
    );
    await expectApiError(
      fx.cloning.createAndClone({ ...base, samples: [{ ...fx.first, transcript: ' ' }] }),
      'invalid_request',
    );
    await expectApiError(
      fx.cloning.createAndClone({ ...base, samples: [fx.first], permissionConfirmed: false }),
      'invalid_request',
    );
    await expectApiError(fx.cloning.createAndClone({ ...base, samples: [] }), 'invalid_request');
    // Nothing half-created by the refusals.
    expect(
      (await new VoiceStore(fx.handle.db).list(fx.ws.workspaceId, ENV)).some(
        (v) => v.name === 'Invalid',
      ),
    ).toBe(false);

    const accepted = await fx.cloning.createAndClone({
      ...base,
      name: 'Mine',
      samples: [fx.first],
    });
    const sampleId = accepted.samples[0]?.id ?? '';
    const scope = { workspaceId: fx.ws.workspaceId, environment: ENV, voiceId: accepted.voice.id };
    expect((await fx.cloning.readSample(scope, sampleId)).equals(fx.first.audio)).toBe(true);
    await expectApiError(
      fx.cloning.readSample({ ...scope, workspaceId: fx.other.workspaceId }, sampleId),
      'voice_not_found',
    );
    await expectApiError(
      fx.cloning.readSample({ ...scope, environment: 'development' }, sampleId),
      'voice_not_found',
    );
    await expectApiError(
      fx.cloning.details(fx.other.workspaceId, ENV, accepted.voice.id),
      'voice_not_found',
    );
    await settled(accepted.voice.id, 'the native derivation');
  });

  it("lists a voice's recording languages, each once, within its workspace", async () => {
    const created = await create(['native'], 'Bilingual');
    const voiceId = created.voice.id;
    await settled(voiceId, 'the native derivation');
    const languages = (workspaceId: string) => sampleLanguages(fx.handle.db, workspaceId, voiceId);
    expect(await languages(fx.ws.workspaceId)).toEqual(['en-US']);
    const add = (sample: typeof fx.second) =>
      fx.cloning.addSample({
        workspaceId: fx.ws.workspaceId,
        environment: ENV,
        voiceId,
        sample,
        permissionConfirmed: true,
        actor: 'owner@example.com',
      });
    await add(fx.second);
    expect(await languages(fx.ws.workspaceId)).toEqual(['en-US']);
    await add({ ...fx.second, language: 'de-DE' });
    expect(await languages(fx.ws.workspaceId)).toEqual(['de-DE', 'en-US']);
    expect(await languages(fx.other.workspaceId)).toEqual([]);
  });
});
