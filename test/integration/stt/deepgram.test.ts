import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeepgramSttProvider } from '../../../src/stt/deepgram/provider.ts';
import { SttError } from '../../../src/stt/errors.ts';
import type { SttEvent } from '../../../src/stt/provider.ts';
import { type FakeDeepgram, startFakeDeepgram } from '../../fakes/deepgram.ts';
import { collect, describeSttConformance, pushFrames, speechSamples } from './conformance.ts';

const KEY = 'dg-test-key';
const logger = pino({ level: 'silent' });
let fake: FakeDeepgram;

beforeAll(async () => {
  fake = await startFakeDeepgram({ apiKey: KEY, idleTimeoutMs: 600, interimEveryMs: 250 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

function provider(
  overrides: Partial<ConstructorParameters<typeof DeepgramSttProvider>[0]> = {},
): DeepgramSttProvider {
  return new DeepgramSttProvider({
    apiKey: KEY,
    baseUrl: fake.url,
    model: 'nova-3',
    keepAliveMs: 4000,
    logger,
    ...overrides,
  });
}

async function failureOf(stream: AsyncIterable<SttEvent>): Promise<SttError> {
  const error = await collect(stream).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SttError);
  return error as SttError;
}

describeSttConformance('deepgram', () => ({
  provider: provider(),
  willHear: (text) => fake.say(text),
  maxWer: 0,
}));

describe('deepgram live transcription', () => {
  const signal = new AbortController().signal;

  it('gives growing interim results, then the final, then flushed; speaks the live protocol', async () => {
    const text = 'Please book a table for two at seven tonight.';
    const samples = await speechSamples(text);
    const before = fake.connections.length;
    const stream = provider().stream({ language: 'en' }, signal);
    fake.say(text);
    pushFrames(stream, samples);
    stream.flush();
    stream.end();
    const events = await collect(stream);

    const interims = events.filter((e) => e.type === 'interim').map((e) => e.text);
    expect(interims.length).toBeGreaterThan(2);
    interims.forEach((interim, i) => {
      expect(text.startsWith(interim)).toBe(true);
      if (i > 0) expect(interim.length).toBeGreaterThan((interims[i - 1] ?? '').length);
    });
    expect(events.slice(interims.length)).toEqual([
      {
        type: 'final',
        endpoint: false,
        text,
        language: 'en',
        startMs: 0,
        endMs: Math.round((samples.length * 1000) / 16_000),
        confidence: 0.97,
      },
      { type: 'flushed' },
    ]);

    const [connection] = fake.connections.slice(before);
    await connection?.closed;
    expect(connection).toMatchObject({
      authValid: true,
      audioBytes: samples.byteLength,
      controlMessages: ['Finalize', 'CloseStream'],
      closeCode: 1000,
    });
    expect(connection?.binaryMessages).toBe(Math.ceil(samples.length / 320));
    expect(connection?.query).toMatchObject({
      model: 'nova-3',
      language: 'en',
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      interim_results: 'true',
    });
  });

  it('fails with auth_rejected, not retryable, on a wrong key', async () => {
    const before = fake.connections.length;
    const stream = provider({ apiKey: 'dg-wrong' }).stream({}, signal);
    const error = await failureOf(stream);
    expect(error).toMatchObject({ failure: 'auth_rejected', retryable: false });
    expect(fake.connections.slice(before)).toEqual([
      expect.objectContaining({ authValid: false, refusedWith: 401 }),
    ]);
  });

  it('fails with overloaded, retryable, when the handshake is rate limited', async () => {
    fake.failNext({ kind: 'handshake_status', status: 429 });
    const error = await failureOf(provider().stream({}, signal));
    expect(error).toMatchObject({ failure: 'overloaded', retryable: true });
  });

  it('ends with a retryable error when the connection drops, and does not reconnect', async () => {
    const samples = await speechSamples('Send a message to John saying I will be late.');
    const before = fake.connections.length;
    fake.failNext({ kind: 'drop_after_bytes', bytes: 16_000 });
    fake.say('Send a message to John saying I will be late.');
    const stream = provider().stream({}, signal);
    pushFrames(stream, samples);
    stream.flush();
    const error = await failureOf(stream);
    expect(error).toMatchObject({ failure: 'unavailable', retryable: true });
    await sleep(300);
    expect(fake.connections.length - before).toBe(1);
  });

  it.each([
    [1011, 'NET-0000', 'unavailable', true],
    [1008, 'DATA-0000', 'rejected', false],
  ] as const)('maps a server close %i to %s', async (code, reason, failure, retryable) => {
    fake.failNext({ kind: 'close_after_bytes', bytes: 3200, code, reason });
    const stream = provider().stream({}, signal);
    pushFrames(stream, new Int16Array(16_000));
    const error = await failureOf(stream);
    expect(error).toMatchObject({ failure, retryable });
  });

  it('keeps an idle stream open with KeepAlive messages', async () => {
    const before = fake.connections.length;
    const stream = provider({ keepAliveMs: 150 }).stream({}, signal);
    const events: SttEvent[] = [];
    const done = (async () => {
      for await (const event of stream) events.push(event);
    })();
    // Silent for twice the fake's 600 ms idle timeout, which closes streams without KeepAlive.
    await sleep(1300);
    fake.say('Hello again.');
    pushFrames(stream, await speechSamples('Hello again.'));
    stream.flush();
    stream.end();
    await done;
    expect(events.filter((e) => e.type === 'final').map((e) => e.text)).toEqual(['Hello again.']);
    const connection = fake.connections[before];
    expect(
      connection?.controlMessages.filter((t) => t === 'KeepAlive').length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('without KeepAlive the idle timeout ends the stream with a retryable error', async () => {
    const stream = provider({ keepAliveMs: 60_000 }).stream({}, signal);
    const error = await failureOf(stream);
    expect(error).toMatchObject({ failure: 'unavailable', retryable: true });
    expect(error.message).toContain('NET-0001');
  });

  it('closes the connection when the signal aborts', async () => {
    const before = fake.connections.length;
    const controller = new AbortController();
    const stream = provider().stream({}, controller.signal);
    pushFrames(stream, new Int16Array(3200));
    await expect.poll(() => fake.connections[before]?.audioBytes ?? 0).toBe(6400);
    controller.abort();
    expect((await failureOf(stream)).failure).toBe('cancelled');
    await fake.connections[before]?.closed;
  });
});
