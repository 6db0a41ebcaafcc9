import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SttError } from '../../../src/stt/errors.ts';
import { OpenAiTranscriptionProvider } from '../../../src/stt/openai/provider.ts';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../../fakes/openai-transcriptions.ts';
import { collect, describeSttConformance, pushFrames, speechSamples } from './conformance.ts';

const KEY = 'sk-test-transcriptions';
const logger = pino({ level: 'silent' });
let fake: FakeTranscriptions;

// A fresh endpoint per test. A request a test cancelled can still reach the server after
// that test is over (the client had written it and given up on the answer): on a shared
// endpoint it took the line the next test scripted. Its connection now ends with its test.
beforeEach(async () => {
  fake = await startFakeTranscriptions({ apiKey: KEY });
});
afterEach(async () => {
  await fake.close();
});

function provider(
  overrides: Partial<ConstructorParameters<typeof OpenAiTranscriptionProvider>[0]> = {},
): OpenAiTranscriptionProvider {
  return new OpenAiTranscriptionProvider({
    baseUrl: fake.url,
    apiKey: KEY,
    model: 'whisper-1',
    responseFormat: 'json',
    timeoutMs: 5000,
    logger,
    ...overrides,
  });
}

for (const responseFormat of ['json', 'verbose_json'] as const) {
  describeSttConformance(`openai (${responseFormat})`, () => ({
    provider: provider({ responseFormat }),
    willHear: (text) => fake.say(text),
    maxWer: 0,
  }));
}

describe('openai-compatible transcription', () => {
  const signal = new AbortController().signal;

  it('posts the utterance as a 16 kHz WAV with model, language and prompt', async () => {
    const samples = await speechSamples('Turn off the lights in the kitchen.');
    fake.say('Turn off the lights in the kitchen.');
    const before = fake.requests.length;
    const result = await provider({ model: 'Systran/faster-whisper-small' }).transcribe(
      samples,
      { language: 'en', prompt: 'kitchen lights' },
      signal,
    );
    expect(result.text).toBe('Turn off the lights in the kitchen.');
    expect(fake.requests.slice(before)).toEqual([
      expect.objectContaining({
        authValid: true,
        status: 200,
        model: 'Systran/faster-whisper-small',
        language: 'en',
        prompt: 'kitchen lights',
        responseFormat: 'json',
        fileName: 'utterance.wav',
        fileType: 'audio/wav',
        sampleRateHz: 16_000,
        audioMs: Math.round((samples.length * 1000) / 16_000),
      }),
    ]);
  });

  it('reads the language and a confidence from verbose_json', async () => {
    fake.say('Play some relaxing music.');
    const samples = await speechSamples('Play some relaxing music.');
    const result = await provider({ responseFormat: 'verbose_json' }).transcribe(
      samples,
      {},
      signal,
    );
    expect(result).toMatchObject({ text: 'Play some relaxing music.', language: 'en' });
    expect(result.confidence).toBeCloseTo(Math.exp(-0.2), 5);
  });

  it.each([
    [401, 'auth_rejected', false],
    [429, 'overloaded', true],
    [500, 'unavailable', true],
    [400, 'rejected', false],
  ] as const)(
    'maps HTTP %i to %s (retryable %s), without retrying',
    async (status, failure, retryable) => {
      const samples = await speechSamples('Hello there.');
      const before = fake.requests.length;
      const target = status === 401 ? provider({ apiKey: 'sk-wrong' }) : provider();
      if (status !== 401) fake.failNext({ kind: 'status', status });
      const error = await target.transcribe(samples, {}, signal).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SttError);
      expect(error).toMatchObject({ failure, retryable });
      expect(fake.requests.length - before).toBe(1);
    },
  );

  it('fails a request past its deadline with a retryable error', async () => {
    fake.failNext({ kind: 'hang' });
    const samples = await speechSamples('Hello there.');
    const started = performance.now();
    await expect(
      provider({ timeoutMs: 300 }).transcribe(samples, {}, signal),
    ).rejects.toMatchObject({
      failure: 'unavailable',
      retryable: true,
    });
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('cancels a request in flight when the signal aborts', async () => {
    fake.failNext({ kind: 'hang' });
    const samples = await speechSamples('Hello there.');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(provider().transcribe(samples, {}, controller.signal)).rejects.toMatchObject({
      failure: 'cancelled',
    });
  });

  it('ends a stream with the error of a failed utterance after the finals before it', async () => {
    const stream = provider().stream({ language: 'en' }, signal);
    fake.say('Turn off the lights.');
    pushFrames(stream, await speechSamples('Turn off the lights.'));
    stream.flush();
    const events: unknown[] = [];
    const done = (async () => {
      for await (const event of stream) events.push(event);
    })();
    await expect.poll(() => events.length).toBe(2);
    fake.failNext({ kind: 'status', status: 503 });
    pushFrames(stream, await speechSamples('And the heating.'));
    stream.flush();
    stream.end();
    await expect(done).rejects.toMatchObject({ failure: 'unavailable', retryable: true });
    expect(events).toEqual([
      expect.objectContaining({ type: 'final', text: 'Turn off the lights.' }),
      { type: 'flushed' },
    ]);
  });

  it('says nothing for an utterance the endpoint hears as silence', async () => {
    const stream = provider().stream({}, signal);
    pushFrames(stream, new Int16Array(8000));
    stream.flush();
    stream.end();
    expect(await collect(stream)).toEqual([{ type: 'flushed' }]);
  });
});
