import { request as httpRequest } from 'node:http';
import { pack } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FISHAUDIO_MODELS,
  FishAudioProvider,
  type FishAudioProviderOptions,
} from '../../../../src/tts/providers/fishaudio/index.ts';
import type { SynthesisRequest } from '../../../../src/tts/providers/provider.ts';
import type { UpstreamProviderError } from '../../../../src/tts/providers/upstream/index.ts';
import { FakeFishAudio, type RecordedRequest } from '../../../fakes/fishaudio.ts';
import { summarize } from '../pcm-stats.ts';
import { expectFailure, outcomeOf } from '../upstream/adapter-suite.ts';

const VOICE = '802e3bc2b27e49c2995d23ef70e6ac89';
const SENTENCE = 'The quick brown fox jumps over the lazy dog.';
const TRACEPARENT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/;
const fakes: FakeFishAudio[] = [];
const providers: FishAudioProvider[] = [];

async function setup(options: FishAudioProviderOptions = {}) {
  const fake = await FakeFishAudio.start();
  fakes.push(fake);
  const provider = new FishAudioProvider({ baseUrl: fake.url, apiKey: fake.apiKey, ...options });
  providers.push(provider);
  return { fake, provider };
}

afterEach(async () => {
  for (const provider of providers.splice(0)) provider.close();
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

function speak(provider: FishAudioProvider, request: Partial<SynthesisRequest>) {
  return outcomeOf(
    provider.synthesize(
      { text: SENTENCE, providerVoiceId: VOICE, ...request },
      new AbortController().signal,
    ),
  );
}

interface FishBody {
  text: string;
  reference_id: string;
  format: string;
  sample_rate: number;
  latency: string;
  prosody?: { speed: number };
}

function bodyOf(recorded: RecordedRequest | undefined): FishBody {
  return recorded?.body as FishBody;
}

describe('Fish Audio request', () => {
  it('posts JSON to /v1/tts with a bearer key, the model header and a traceparent', async () => {
    const { fake, provider } = await setup();
    const outcome = await speak(provider, { model: 's2-pro', preferredSampleRateHz: 16000 });
    expect(outcome.error).toBeUndefined();
    const [recorded] = fake.requests;
    expect(recorded).toMatchObject({
      method: 'POST',
      path: '/v1/tts',
      auth: { present: true, valid: true },
      status: 200,
    });
    expect(recorded?.headers).toMatchObject({
      'content-type': 'application/json',
      model: 's2-pro',
    });
    expect(recorded?.headers).not.toHaveProperty('authorization');
    expect(recorded?.headers.traceparent).toMatch(TRACEPARENT);
    expect(recorded?.body).toEqual({
      text: SENTENCE,
      reference_id: VOICE,
      format: 'pcm',
      sample_rate: 16000,
      latency: 'balanced',
    });
  });

  it('uses the default model and latency unless configured otherwise', async () => {
    const plain = await setup();
    await speak(plain.provider, {});
    expect(plain.fake.requests[0]?.headers.model).toBe('s2.1-pro');
    const tuned = await setup({ defaultModel: 's1', latency: 'normal' });
    await speak(tuned.provider, {});
    expect(tuned.fake.requests[0]?.headers.model).toBe('s1');
    expect(bodyOf(tuned.fake.requests[0]).latency).toBe('normal');
  });

  it('refuses an unknown model or a malformed voice id without sending anything', async () => {
    const { fake, provider } = await setup();
    expectFailure((await speak(provider, { model: 's9' })).error, 'rejected', fake.apiKey);
    for (const providerVoiceId of ['', 'a b', 'x'.repeat(129), 'id\n']) {
      expectFailure((await speak(provider, { providerVoiceId })).error, 'rejected', fake.apiKey);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('errors carry the trace id sent in traceparent as the upstream request id', async () => {
    const { fake, provider } = await setup();
    fake.failNext({ kind: 'status', status: 402 });
    const outcome = await speak(provider, {});
    expectFailure(outcome.error, 'auth_rejected', fake.apiKey);
    const traceId = TRACEPARENT.exec(fake.requests[0]?.headers.traceparent ?? '')?.[1];
    expect((outcome.error as UpstreamProviderError).upstreamRequestId).toBe(traceId);
    expect((outcome.error as Error).message).toContain('Insufficient Balance');
  });

  it('sends a fresh traceparent with every request', async () => {
    const { fake, provider } = await setup();
    await speak(provider, {});
    await speak(provider, {});
    const [first, second] = fake.requests.map((r) => r.headers.traceparent);
    expect(first).not.toBe(second);
  });
});

describe('Fish Audio output format', () => {
  it.each([
    [16000, 16000],
    [24000, 24000],
    [44100, 44100],
    [8000, 8000],
    [32000, 32000],
    [48000, 44100],
    [22050, 24000],
    [undefined, 24000],
  ])('a caller at %s Hz gets headerless PCM at %i Hz', async (preferred, rate) => {
    const { fake, provider } = await setup();
    const outcome = await speak(
      provider,
      preferred === undefined ? {} : { preferredSampleRateHz: preferred },
    );
    expect(outcome.error).toBeUndefined();
    expect(bodyOf(fake.requests[0])).toMatchObject({ format: 'pcm', sample_rate: rate });
    expect(new Set(outcome.chunks.map((chunk) => chunk.sampleRateHz))).toEqual(new Set([rate]));
    // Headerless: the first bytes are samples, not "RIFF".
    expect(outcome.chunks[0]?.data.subarray(0, 4).toString('latin1')).not.toBe('RIFF');
  });

  it('labels every rate correctly: the same sentence lasts as long at each rate', async () => {
    const { provider } = await setup();
    const durations: number[] = [];
    for (const preferredSampleRateHz of [16000, 24000, 44100]) {
      durations.push(
        summarize((await speak(provider, { preferredSampleRateHz })).chunks).durationMs,
      );
    }
    const [first] = durations;
    for (const duration of durations) expect(Math.abs(duration - first!)).toBeLessThan(20);
  });

  it('advertises the PCM rates Fish produces and Opus, never pcm_48000 or AAC; tags on S2 only; word alignment, not characters', () => {
    for (const model of Object.values(FISHAUDIO_MODELS)) {
      expect(model.outputFormats).toEqual(['pcm_16000', 'pcm_24000', 'pcm_44100', 'opus_48000_64']);
      expect(model.capabilities).toEqual(
        model.model === 's1' ? ['tts', 'word_alignment'] : ['tts', 'voice_tags', 'word_alignment'],
      );
    }
  });
});

describe('Fish Audio speed', () => {
  it.each([
    [3, 2],
    [1.5, 1.5],
    [0.75, 0.75],
    [0.25, 0.5],
  ])('speed %s is sent as prosody.speed %s', async (speed, sent) => {
    const { fake, provider } = await setup();
    const outcome = await speak(provider, { speed });
    expect(outcome.error).toBeUndefined();
    expect(bodyOf(fake.requests[0]).prosody).toEqual({ speed: sent });
  });

  it('normal speed sends no prosody', async () => {
    const { fake, provider } = await setup();
    await speak(provider, { speed: 1 });
    expect(bodyOf(fake.requests[0])).not.toHaveProperty('prosody');
  });

  it('the speed is audible: speed 2 is shorter than speed 0.5', async () => {
    const { provider } = await setup();
    const fast = summarize((await speak(provider, { speed: 2 })).chunks).durationMs;
    const slow = summarize((await speak(provider, { speed: 0.5 })).chunks).durationMs;
    expect(fast).toBeLessThan(slow * 0.6);
  });
});

describe('Fish Audio voice tags', () => {
  it.each([
    ['s2-pro', '[whispering] [curious] '],
    ['s2.1-pro', '[whispering] [curious] '],
    ['s1', '(whispering) (curious) '],
  ])('%s gets the tags first as %j', async (model, prefix) => {
    const { fake, provider } = await setup();
    await speak(provider, { model, voiceTags: ['whispering', 'curious'] });
    expect(bodyOf(fake.requests[0]).text).toBe(`${prefix}${SENTENCE}`);
  });

  it('removes provider syntax and control characters from tag values', async () => {
    const { fake, provider } = await setup();
    await speak(provider, { model: 's1', voiceTags: ['sad) (angry', '<|speaker:1|>x\ty'] });
    expect(bodyOf(fake.requests[0]).text).toBe(`(sad angry) (|speaker:1|x y) ${SENTENCE}`);
  });

  it('inline cues in the text pass through unchanged', async () => {
    const { fake, provider } = await setup();
    const text = 'I did not want to go [whispering] inside.';
    await speak(provider, { model: 's2-pro', text });
    expect(bodyOf(fake.requests[0]).text).toBe(text);
  });
});

describe('Fish Audio fake', () => {
  it('also accepts MessagePack bodies, as Fish does', async () => {
    const { fake } = await setup();
    const body = pack({ text: 'Hello.', format: 'pcm', sample_rate: 16000 });
    const { status, bytes } = await new Promise<{ status: number; bytes: number }>(
      (resolve, reject) => {
        const req = httpRequest(`${fake.url}/v1/tts`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${fake.apiKey}`,
            'content-type': 'application/msgpack',
            model: 's1',
          },
        });
        req.on('error', reject);
        req.on('response', (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.byteLength;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        });
        req.end(body);
      },
    );
    expect(status).toBe(200);
    expect(bytes).toBeGreaterThan(16000);
    expect(fake.requests[0]?.body).toEqual({ text: 'Hello.', format: 'pcm', sample_rate: 16000 });
  });
});
