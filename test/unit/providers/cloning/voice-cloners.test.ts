import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloneFile, VoiceCloner } from '../../../../src/tts/providers/cloning/cloner.ts';
import { ElevenLabsVoiceCloner } from '../../../../src/tts/providers/elevenlabs/voice-cloning.ts';
import { FishAudioVoiceCloner } from '../../../../src/tts/providers/fishaudio/voice-cloning.ts';
import { UpstreamProviderError } from '../../../../src/tts/providers/upstream/status.ts';
import { FakeElevenLabs } from '../../../fakes/elevenlabs.ts';
import { FakeFishAudio } from '../../../fakes/fishaudio.ts';
import { speechSample } from '../../../helpers/voice-samples.ts';

interface Case {
  name: string;
  start: () => Promise<FakeElevenLabs | FakeFishAudio>;
  cloner: (baseUrl: string, apiKey: string | undefined) => VoiceCloner;
  createPath: RegExp;
}

const CASES: Case[] = [
  {
    name: 'elevenlabs',
    start: () => FakeElevenLabs.start(),
    cloner: (baseUrl, apiKey) => new ElevenLabsVoiceCloner({ baseUrl, apiKey }),
    createPath: /^\/v1\/voices\/add$/,
  },
  {
    name: 'fishaudio',
    start: () => FakeFishAudio.start(),
    cloner: (baseUrl, apiKey) => new FishAudioVoiceCloner({ baseUrl, apiKey }),
    createPath: /^\/model$/,
  },
];

async function failureOf(promise: Promise<unknown>): Promise<UpstreamProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamProviderError);
  return error as UpstreamProviderError;
}

describe.each(CASES)('$name voice cloner', ({ start, cloner, createPath }) => {
  let fake: FakeElevenLabs | FakeFishAudio;
  let subject: VoiceCloner;
  let files: CloneFile[];
  const signal = new AbortController().signal;

  beforeAll(async () => {
    fake = await start();
    subject = cloner(fake.url, fake.apiKey);
    const sample = await speechSample('A short recording for the cloner test.', 'f3');
    files = [{ ...sample, fileName: 'smp_one.wav', data: sample.audio }];
  });

  afterAll(async () => {
    subject?.close();
    await fake?.close();
  });

  it('creates a voice and finds it again by its exact name only', async () => {
    const created = await subject.create(
      { name: 'awp voice_a att_1', description: 'd', files },
      signal,
    );
    await subject.create({ name: 'awp voice_a att_10', description: 'd', files }, signal);
    expect(created.providerVoiceId).not.toBe('');
    expect(created.blockedReason).toBeUndefined();
    expect(await subject.findByName('awp voice_a att_1', signal)).toBe(created.providerVoiceId);
    expect(await subject.findByName('awp voice_a att_2', signal)).toBeNull();
  });

  it('removes a voice, and a voice already gone is not an error', async () => {
    const created = await subject.create({ name: 'to remove', description: 'd', files }, signal);
    await subject.remove(created.providerVoiceId, signal);
    await subject.remove(created.providerVoiceId, signal);
    expect(await subject.findByName('to remove', signal)).toBeNull();
  });

  it('maps a rejection, a busy vendor and a refused key to their failure kinds', async () => {
    fake.failNext({ kind: 'status', status: 422 }, 1, { path: createPath });
    const rejected = await failureOf(
      subject.create({ name: 'x', description: 'd', files }, signal),
    );
    expect(rejected).toMatchObject({ failure: 'rejected', status: 422, retryable: false });
    fake.failNext({ kind: 'status', status: 429 }, 1, { path: createPath });
    const busy = await failureOf(subject.create({ name: 'x', description: 'd', files }, signal));
    expect(busy).toMatchObject({ failure: 'overloaded', retryable: true });
    const wrongKey = cloner(fake.url, 'not-the-key-123');
    try {
      const refused = await failureOf(
        wrongKey.create({ name: 'x', description: 'd', files }, signal),
      );
      expect(refused).toMatchObject({ failure: 'auth_rejected', status: 401 });
      expect(refused.message).not.toContain('not-the-key-123');
    } finally {
      wrongKey.close();
    }
    const noKey = cloner(fake.url, undefined);
    try {
      expect(
        await failureOf(noKey.create({ name: 'x', description: 'd', files }, signal)),
      ).toMatchObject({
        failure: 'auth_missing',
      });
    } finally {
      noKey.close();
    }
  });

  it('sends nothing the vendor would refuse: an empty file is a rejection', async () => {
    const empty = [{ ...files[0]!, data: Buffer.alloc(0) }];
    expect(
      await failureOf(subject.create({ name: 'x', description: 'd', files: empty }, signal)),
    ).toMatchObject({
      failure: 'rejected',
    });
  });
});

describe('ElevenLabs appends recordings to an existing voice', () => {
  it('adds files by edit and reports the file names the voice holds', async () => {
    const fake = await FakeElevenLabs.start();
    const subject = new ElevenLabsVoiceCloner({ baseUrl: fake.url, apiKey: fake.apiKey });
    try {
      const sample = await speechSample('One more recording for the append test.', 'm3');
      const file = (name: string): CloneFile => ({ ...sample, fileName: name, data: sample.audio });
      const { providerVoiceId } = await subject.create(
        { name: 'append me', description: 'd', files: [file('smp_a.wav')] },
        new AbortController().signal,
      );
      await subject.append(
        providerVoiceId,
        'append me',
        [file('smp_b.wav')],
        new AbortController().signal,
      );
      expect([...(await subject.fileNames(providerVoiceId, new AbortController().signal))]).toEqual(
        ['smp_a.wav', 'smp_b.wav'],
      );
      const missing = await failureOf(
        subject.append('nosuchvoice', 'x', [file('smp_c.wav')], new AbortController().signal),
      );
      expect(missing).toMatchObject({
        failure: 'rejected',
        status: 404,
        vendorCode: 'voice_not_found',
      });
      fake.library.requireVerification = true;
      const held = await subject.create(
        { name: 'verify me', description: 'd', files: [file('smp_d.wav')] },
        new AbortController().signal,
      );
      expect(held.blockedReason).toContain('verify');
    } finally {
      subject.close();
      await fake.close();
    }
  });
});
