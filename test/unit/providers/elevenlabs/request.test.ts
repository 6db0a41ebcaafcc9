import { afterEach, describe, expect, it } from 'vitest';
import {
  ELEVENLABS_MODELS,
  ElevenLabsProvider,
  type ElevenLabsProviderOptions,
} from '../../../../src/tts/providers/elevenlabs/index.ts';
import type { SynthesisRequest } from '../../../../src/tts/providers/provider.ts';
import type { UpstreamProviderError } from '../../../../src/tts/providers/upstream/index.ts';
import { FakeElevenLabs, type RecordedRequest } from '../../../fakes/elevenlabs.ts';
import { summarize } from '../pcm-stats.ts';
import { expectFailure, outcomeOf, recordingLogger } from '../upstream/adapter-suite.ts';

const VOICE = 'JBFqnCBsd6RMkjVDRZzb';
const SENTENCE = 'The quick brown fox jumps over the lazy dog.';
const fakes: FakeElevenLabs[] = [];
const providers: ElevenLabsProvider[] = [];

async function setup(options: ElevenLabsProviderOptions = {}) {
  const fake = await FakeElevenLabs.start();
  fakes.push(fake);
  const provider = new ElevenLabsProvider({ baseUrl: fake.url, apiKey: fake.apiKey, ...options });
  providers.push(provider);
  return { fake, provider };
}

afterEach(async () => {
  for (const provider of providers.splice(0)) provider.close();
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

function speak(provider: ElevenLabsProvider, request: Partial<SynthesisRequest>) {
  return outcomeOf(
    provider.synthesize(
      { text: SENTENCE, providerVoiceId: VOICE, ...request },
      new AbortController().signal,
    ),
  );
}

function bodyOf(recorded: RecordedRequest | undefined) {
  return recorded?.body as { text: string; model_id: string; voice_settings?: { speed: number } };
}

/** Sentences of about 100 characters, `count` of them. */
function sentences(count: number): string {
  return Array.from(
    { length: count },
    (_, i) => `Sentence number ${i + 1} is here to make the text long enough to need splitting.`,
  ).join(' ');
}

describe('ElevenLabs request', () => {
  it('posts JSON to the streaming endpoint with the key in xi-api-key', async () => {
    const { fake, provider } = await setup();
    const outcome = await speak(provider, { model: 'eleven_multilingual_v2' });
    expect(outcome.error).toBeUndefined();
    const [recorded] = fake.requests;
    expect(recorded).toMatchObject({
      method: 'POST',
      path: `/v1/text-to-speech/${VOICE}/stream`,
      auth: { present: true, valid: true },
      status: 200,
    });
    expect(recorded?.headers['content-type']).toBe('application/json');
    expect(recorded?.headers).not.toHaveProperty('xi-api-key');
    expect(recorded?.body).toEqual({ text: SENTENCE, model_id: 'eleven_multilingual_v2' });
  });

  it('uses the default model when the route names none', async () => {
    const plain = await setup();
    await speak(plain.provider, {});
    expect(bodyOf(plain.fake.requests[0]).model_id).toBe('eleven_multilingual_v2');
    const v3 = await setup({ defaultModel: 'eleven_v3' });
    await speak(v3.provider, {});
    expect(bodyOf(v3.fake.requests[0]).model_id).toBe('eleven_v3');
  });

  it('refuses an unknown model or a malformed voice id without sending anything', async () => {
    const { fake, provider } = await setup();
    const unknownModel = await speak(provider, { model: 'eleven_future_v9' });
    expectFailure(unknownModel.error, 'rejected', fake.apiKey);
    for (const providerVoiceId of ['', '../../v1/user', 'a b', 'x'.repeat(65)]) {
      const badVoice = await speak(provider, { providerVoiceId });
      expectFailure(badVoice.error, 'rejected', fake.apiKey);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('captures the request-id of answers for logs and errors', async () => {
    const { logger, entries } = recordingLogger();
    const { fake, provider } = await setup({ logger });
    await speak(provider, {});
    const finished = entries.find((entry) => entry.message === 'upstream synthesis finished');
    expect(finished?.fields.upstreamRequestId).toBe(
      fake.requests[0]?.responseHeaders['request-id'],
    );
    fake.failNext({ kind: 'status', status: 503 });
    const failed = await speak(provider, {});
    expect((failed.error as UpstreamProviderError).upstreamRequestId).toBe(
      fake.requests[1]?.responseHeaders['request-id'],
    );
    expect((failed.error as UpstreamProviderError).vendorCode).toBe('system_busy');
  });
});

describe('ElevenLabs output format', () => {
  it.each([
    [16000, 'pcm_16000', 16000],
    [22050, 'pcm_22050', 22050],
    [24000, 'pcm_24000', 24000],
    [44100, 'pcm_44100', 44100],
    [48000, 'pcm_48000', 48000],
    [8000, 'pcm_8000', 8000],
    [11025, 'pcm_24000', 24000],
    [96000, 'pcm_44100', 44100],
    [undefined, 'pcm_24000', 24000],
  ])('a caller at %s Hz gets %s, labelled %i Hz', async (preferred, format, rate) => {
    const { fake, provider } = await setup();
    const outcome = await speak(
      provider,
      preferred === undefined ? {} : { preferredSampleRateHz: preferred },
    );
    expect(outcome.error).toBeUndefined();
    expect(fake.requests[0]?.query).toEqual({ output_format: format });
    expect(new Set(outcome.chunks.map((chunk) => chunk.sampleRateHz))).toEqual(new Set([rate]));
  });

  it('labels every rate correctly: the same sentence lasts as long at each rate', async () => {
    const { provider } = await setup();
    const durations: number[] = [];
    for (const preferredSampleRateHz of [16000, 24000, 48000]) {
      const outcome = await speak(provider, { preferredSampleRateHz });
      durations.push(summarize(outcome.chunks).durationMs);
    }
    const [first] = durations;
    for (const duration of durations) expect(Math.abs(duration - first!)).toBeLessThan(20);
  });

  it('advertises PCM rates and Opus but not AAC for every model', () => {
    for (const model of Object.values(ELEVENLABS_MODELS)) {
      expect(model.outputFormats).toEqual([
        'pcm_16000',
        'pcm_24000',
        'pcm_44100',
        'pcm_48000',
        'opus_48000_64',
      ]);
      expect(model.outputFormats).not.toContain('aac_44100_128');
    }
    expect(ELEVENLABS_MODELS.eleven_multilingual_v2.capabilities).toEqual([
      'tts',
      'word_alignment',
      'char_alignment',
    ]);
    expect(ELEVENLABS_MODELS.eleven_v3.capabilities).toEqual([
      'tts',
      'voice_tags',
      'word_alignment',
      'char_alignment',
    ]);
  });
});

describe('ElevenLabs speed', () => {
  it.each([
    [2, 1.2],
    [1.5, 1.2],
    [1.1, 1.1],
    [0.8, 0.8],
    [0.5, 0.7],
  ])('speed %s is sent as voice_settings.speed %s', async (speed, sent) => {
    const { fake, provider } = await setup();
    const outcome = await speak(provider, { speed });
    expect(outcome.error).toBeUndefined();
    expect(bodyOf(fake.requests[0]).voice_settings).toEqual({ speed: sent });
  });

  it('normal speed sends no voice_settings', async () => {
    const { fake, provider } = await setup();
    await speak(provider, { speed: 1 });
    await speak(provider, {});
    expect(fake.requests.map((r) => bodyOf(r).voice_settings)).toEqual([undefined, undefined]);
  });

  it('the clamped speed is audible: fastest is shorter than slowest', async () => {
    const { provider } = await setup();
    const fast = summarize((await speak(provider, { speed: 3 })).chunks).durationMs;
    const slow = summarize((await speak(provider, { speed: 0.3 })).chunks).durationMs;
    expect(fast).toBeLessThan(slow * 0.8);
  });
});

describe('ElevenLabs voice tags', () => {
  it('eleven_v3 puts the request-wide tags first, each in square brackets', async () => {
    const { fake, provider } = await setup();
    await speak(provider, { model: 'eleven_v3', voiceTags: ['whispering', 'curious'] });
    expect(bodyOf(fake.requests[0]).text).toBe(`[whispering] [curious] ${SENTENCE}`);
  });

  it('removes provider syntax and control characters from tag values', async () => {
    const { fake, provider } = await setup();
    await speak(provider, {
      model: 'eleven_v3',
      voiceTags: ['sad] [shouting', 'soft\u0000ly\n(very) <b>{x}'],
    });
    expect(bodyOf(fake.requests[0]).text).toBe(`[sad shouting] [soft ly very bx] ${SENTENCE}`);
  });

  it('inline cues in the text pass through unchanged', async () => {
    const { fake, provider } = await setup();
    const text = 'Well [laughs] that was [whispers] unexpected.';
    await speak(provider, { model: 'eleven_v3', text, voiceTags: ['warm'] });
    expect(bodyOf(fake.requests[0]).text).toBe(`[warm] ${text}`);
  });

  it('a tag-only request speaks the tags alone', async () => {
    const { fake, provider } = await setup();
    const outcome = await speak(provider, { model: 'eleven_v3', text: '', voiceTags: ['laughs'] });
    expect(outcome.error).toBeUndefined();
    expect(bodyOf(fake.requests[0]).text).toBe('[laughs]');
  });

  it('eleven_multilingual_v2 does not send tags', async () => {
    const { fake, provider } = await setup();
    await speak(provider, { model: 'eleven_multilingual_v2', voiceTags: ['whispering'] });
    expect(bodyOf(fake.requests[0]).text).toBe(SENTENCE);
  });
});

describe('ElevenLabs long text', () => {
  it('splits text over the v3 limit on sentence boundaries into one continuous stream', async () => {
    const { fake, provider } = await setup();
    const text = sentences(150); // about 12,400 characters
    const outcome = await speak(provider, {
      model: 'eleven_v3',
      text,
      voiceTags: ['calm'],
      preferredSampleRateHz: 16000,
    });
    expect(outcome.error).toBeUndefined();
    const parts = fake.requests.map((r) => bodyOf(r).text);
    expect(parts).toHaveLength(3);
    for (const part of parts) {
      expect(Array.from(part).length).toBeLessThanOrEqual(5_000);
      expect(part).toMatch(/^\[calm\] Sentence number \d+ .*splitting\.$/);
    }
    expect(parts.map((part) => part.slice('[calm] '.length)).join(' ')).toBe(text);
    // Every part's audio arrives, in order, as one stream at one rate.
    expect(fake.requests.every((r) => r.outcome === 'completed')).toBe(true);
    const sent = fake.requests.reduce((sum, r) => sum + r.audioBytesSent, 0);
    expect(outcome.bytes).toBe(sent);
    expect(new Set(outcome.chunks.map((chunk) => chunk.sampleRateHz))).toEqual(new Set([16000]));
    expect(new Set(fake.requests.map((r) => r.query.output_format))).toEqual(
      new Set(['pcm_16000']),
    );
  });

  it('eleven_multilingual_v2 takes up to 10,000 characters per request', async () => {
    const { fake, provider } = await setup();
    const text = sentences(120);
    expect(text.length).toBeLessThanOrEqual(10_000);
    await speak(provider, { model: 'eleven_multilingual_v2', text });
    expect(fake.requests.map((r) => bodyOf(r).text)).toEqual([text]);
    const longer = `${text} ${sentences(20)}`;
    await speak(provider, { model: 'eleven_multilingual_v2', text: longer });
    expect(fake.requests).toHaveLength(3);
  });

  it('a failure in a later part throws after the earlier audio, never ends short', async () => {
    const { fake, provider } = await setup();
    fake.failAt(1, { kind: 'status', status: 500 });
    const outcome = await speak(provider, { model: 'eleven_v3', text: sentences(120) });
    expectFailure(outcome.error, 'unavailable', fake.apiKey);
    expect(outcome.bytes).toBe(fake.requests[0]?.audioBytesSent);
    expect(outcome.bytes).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(2);
  });

  it('an abort during the first part sends no further part', async () => {
    const { fake, provider } = await setup();
    const controller = new AbortController();
    const reason = new Error('enough');
    let thrown: unknown;
    try {
      for await (const _ of provider.synthesize(
        { text: sentences(120), providerVoiceId: VOICE, model: 'eleven_v3' },
        controller.signal,
      )) {
        controller.abort(reason);
      }
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(reason);
    expect(fake.requests).toHaveLength(1);
    expect(await fake.requests[0]?.ended).toBe('client_closed');
  });
});
