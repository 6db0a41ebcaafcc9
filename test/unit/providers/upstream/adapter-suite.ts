import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { PcmChunk } from '../../../../media/pcm.ts';
import { ProviderError, type ProviderFailure } from '../../../../src/tts/providers/errors.ts';
import type { SynthesisRequest, TtsProvider } from '../../../../src/tts/providers/provider.ts';
import type {
  ApiKeySource,
  ConcurrencyLimiterStats,
  UpstreamLogger,
  UpstreamProviderError,
  UpstreamTimeouts,
} from '../../../../src/tts/providers/upstream/index.ts';
import type {
  FakeVendorOptions,
  FakeVendorServer,
  RecordedRequest,
} from '../../../fakes/vendor-server.ts';
import { waitFor } from '../../../helpers/wait.ts';

/** An upstream adapter as the suite drives it. */
export interface UpstreamAdapter extends TtsProvider {
  readonly stats: ConcurrencyLimiterStats;
  close(): void;
}

/** Provider settings the suite varies. */
export interface AdapterSettings {
  readonly baseUrl?: string;
  readonly apiKey?: ApiKeySource;
  readonly timeouts?: Partial<UpstreamTimeouts>;
  readonly maxConcurrentRequests?: number;
  readonly logger?: UpstreamLogger;
}

/** How the suite starts a vendor's fake and builds its adapter. */
export interface AdapterHarness<F extends FakeVendorServer> {
  readonly name: string;
  readonly startFake: (options?: FakeVendorOptions) => Promise<F>;
  /** An adapter talking to `fake` with its key unless `settings` says otherwise. */
  readonly makeProvider: (fake: F, settings?: AdapterSettings) => UpstreamAdapter;
  /** A short request the fake answers with real speech. */
  readonly request: SynthesisRequest;
  /** The text a recorded request asked the vendor to speak. */
  readonly spokenText: (recorded: RecordedRequest) => string;
}

/** One log call. */
export interface LogEntry {
  readonly level: 'warn' | 'debug';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A logger that keeps what it was given. */
export function recordingLogger(): { logger: UpstreamLogger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    logger: {
      warn: (fields, message) => entries.push({ level: 'warn', fields, message }),
      debug: (fields, message) => entries.push({ level: 'debug', fields, message }),
    },
  };
}

/** What a synthesis produced before it ended or failed. */
export interface Outcome {
  readonly chunks: PcmChunk[];
  readonly bytes: number;
  readonly error: unknown;
}

/** Reads `stream` to its end, keeping the error it threw instead of throwing. */
export async function outcomeOf(stream: AsyncIterable<PcmChunk>): Promise<Outcome> {
  const chunks: PcmChunk[] = [];
  let error: unknown;
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (thrown) {
    error = thrown;
  }
  return { chunks, bytes: chunks.reduce((sum, c) => sum + c.data.byteLength, 0), error };
}

/** Asserts `error` is a ProviderError of `failure` that does not leak `secret`. */
export function expectFailure(error: unknown, failure: ProviderFailure, secret: string): void {
  expect(error).toBeInstanceOf(ProviderError);
  expect((error as ProviderError).failure).toBe(failure);
  expect(String((error as Error).message)).not.toContain(secret);
  expect(String((error as Error).stack)).not.toContain(secret);
}

function signal(): AbortSignal {
  return new AbortController().signal;
}

/** A 127.0.0.1 port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The behaviour every upstream adapter shows against its vendor's fake: failure mapping,
 * secrecy of the key, timeouts, truncated streams, cancellation, the concurrency bound
 * and connection reuse.
 */
export function runUpstreamAdapterSuite<F extends FakeVendorServer>(harness: AdapterHarness<F>) {
  const fakes: F[] = [];
  const providers: UpstreamAdapter[] = [];

  async function setup(settings: AdapterSettings = {}, fakeOptions: FakeVendorOptions = {}) {
    const fake = await harness.startFake(fakeOptions);
    fakes.push(fake);
    const provider = harness.makeProvider(fake, settings);
    providers.push(provider);
    return { fake, provider };
  }

  afterEach(async () => {
    for (const provider of providers.splice(0)) provider.close();
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  });

  describe(`${harness.name} credentials`, () => {
    it.each([
      ['not configured', undefined],
      ['empty', ''],
      ['blank from a function', () => '  '],
      ['undefined from a function', () => undefined],
    ])('a key %s fails with auth_missing and sends nothing', async (_, apiKey) => {
      const { fake, provider } = await setup({ apiKey });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'auth_missing', fake.apiKey);
      expect(outcome.chunks).toHaveLength(0);
      expect(fake.requests).toHaveLength(0);
      expect(fake.connectionCount).toBe(0);
    });

    it('a key that cannot be a header value fails with auth_missing and sends nothing', async () => {
      const { fake, provider } = await setup({ apiKey: 'abc\r\nx-evil: 1' });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'auth_missing', 'abc\r\nx-evil');
      expect(fake.requests).toHaveLength(0);
    });

    it('reads a key function on every request, so a rotated key applies at once', async () => {
      let key = 'old-key-not-valid-000';
      const { fake, provider } = await setup({ apiKey: () => key });
      const refused = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(refused.error, 'auth_rejected', key);
      key = fake.apiKey;
      const accepted = await outcomeOf(provider.synthesize(harness.request, signal()));
      expect(accepted.error).toBeUndefined();
      expect(fake.requests.map((r) => r.auth)).toEqual([
        { present: true, valid: false },
        { present: true, valid: true },
      ]);
    });

    it('a wrong key is auth_rejected, logged for the operator without the key', async () => {
      const { logger, entries } = recordingLogger();
      const wrongKey = 'wrong-key-abcdefghijkl';
      const { fake, provider } = await setup({ apiKey: wrongKey, logger });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'auth_rejected', wrongKey);
      expect((outcome.error as UpstreamProviderError).status).toBe(401);
      expect(fake.requests[0]?.auth).toEqual({ present: true, valid: false });
      const warnings = entries.filter((entry) => entry.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.fields).toMatchObject({ provider: provider.name, status: 401 });
      expect(JSON.stringify(entries)).not.toContain(wrongKey);
    });

    it('scrubs the key from vendor text that echoes it', async () => {
      const { fake, provider } = await setup();
      fake.failNext({
        kind: 'status',
        status: 400,
        body: {
          detail: { status: 'bad', message: `key ${fake.apiKey} is odd` },
          message: `key ${fake.apiKey} is odd`,
        },
      });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'rejected', fake.apiKey);
      expect((outcome.error as Error).message).toContain('[redacted]');
    });
  });

  describe(`${harness.name} HTTP status mapping`, () => {
    it.each([
      [401, 'auth_rejected', false],
      [403, 'auth_rejected', false],
      [402, 'auth_rejected', false],
      [429, 'overloaded', true],
      [503, 'overloaded', true],
      [500, 'unavailable', true],
      [502, 'unavailable', true],
      [504, 'unavailable', true],
      [400, 'rejected', false],
      [404, 'rejected', false],
      [422, 'rejected', false],
    ] as const)('HTTP %i is %s (retryable: %s)', async (status, failure, retryable) => {
      const { logger, entries } = recordingLogger();
      const { fake, provider } = await setup({ logger });
      fake.failNext({ kind: 'status', status });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, failure, fake.apiKey);
      const error = outcome.error as UpstreamProviderError;
      expect(error.retryable).toBe(retryable);
      expect(error.status).toBe(status);
      expect(error.provider).toBe(provider.name);
      expect(outcome.chunks).toHaveLength(0);
      const warned = entries.some((entry) => entry.level === 'warn');
      expect(warned).toBe(failure === 'auth_rejected');
      expect(JSON.stringify(entries)).not.toContain(fake.apiKey);
    });

    it('serves the next request after an error answer on the same connection', async () => {
      const { fake, provider } = await setup();
      fake.failNext({ kind: 'status', status: 429 });
      const refused = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(refused.error, 'overloaded', fake.apiKey);
      const served = await outcomeOf(provider.synthesize(harness.request, signal()));
      expect(served.error).toBeUndefined();
      expect(served.bytes).toBeGreaterThan(0);
      expect(fake.connectionCount).toBe(1);
    });
  });

  describe(`${harness.name} broken exchanges`, () => {
    // Short so the tests are quick, yet long enough that the fake (which synthesizes with
    // espeak-ng before its headers) cannot trip them on a busy machine.
    const timeouts = { firstByteTimeoutMs: 3_000, idleTimeoutMs: 1_500 };

    it('a vendor that never answers fails with unavailable and the request is closed', async () => {
      const { fake, provider } = await setup({ timeouts });
      fake.failNext({ kind: 'hang' });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'unavailable', fake.apiKey);
      expect(await fake.requests[0]?.ended).toBe('client_closed');
    });

    it('headers followed by silence fail with unavailable', async () => {
      const { fake, provider } = await setup({ timeouts });
      fake.failNext({ kind: 'stall_after_bytes', bytes: 0 });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'unavailable', fake.apiKey);
      expect(outcome.chunks).toHaveLength(0);
      expect(await fake.requests[0]?.ended).toBe('client_closed');
    });

    it('a stall after partial audio throws unavailable after the audio, never ends silently', async () => {
      const { fake, provider } = await setup({ timeouts });
      fake.failNext({ kind: 'stall_after_bytes', bytes: 6001 });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'unavailable', fake.apiKey);
      expect(outcome.bytes).toBe(6000);
    });

    it.each([
      ['reset (RST)', 'reset_after_bytes'],
      ['closed (FIN) before the body ended', 'close_after_bytes'],
    ] as const)('a connection %s after partial audio throws unavailable', async (_, kind) => {
      const { fake, provider } = await setup();
      fake.failNext({ kind, bytes: 4000 });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'unavailable', fake.apiKey);
      expect(outcome.bytes).toBe(4000);
      expect(outcome.chunks.every((chunk) => chunk.data.byteLength % 2 === 0)).toBe(true);
      // The next request still works, on a new connection.
      const next = await outcomeOf(provider.synthesize(harness.request, signal()));
      expect(next.error).toBeUndefined();
      expect(fake.connectionCount).toBe(2);
    });

    it('a body cut inside a sample throws unavailable', async () => {
      const { fake, provider } = await setup();
      fake.failNext({ kind: 'close_after_bytes', bytes: 3001 });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'unavailable', fake.apiKey);
      expect(outcome.bytes).toBe(3000);
    });

    it('an empty 200 answer throws unavailable', async () => {
      const { fake, provider } = await setup();
      fake.failNext({ kind: 'end_after_bytes', bytes: 0 });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'unavailable', fake.apiKey);
      expect(fake.requests[0]?.outcome).toBe('completed');
    });

    it('a complete answer with half a sample at the end throws unavailable', async () => {
      const { fake, provider } = await setup();
      fake.failNext({ kind: 'end_after_bytes', bytes: 5001 });
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'unavailable', fake.apiKey);
      expect(outcome.bytes).toBe(5000);
    });

    it('a vendor that cannot be reached fails with unavailable', async () => {
      const { fake } = await setup();
      const provider = harness.makeProvider(fake, {
        baseUrl: `http://127.0.0.1:${await closedPort()}`,
      });
      providers.push(provider);
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(outcome.error, 'unavailable', fake.apiKey);
    });
  });

  describe(`${harness.name} cancellation`, () => {
    it('abort mid-stream closes the upstream connection and throws signal.reason', async () => {
      const { fake, provider } = await setup();
      const controller = new AbortController();
      const iterator = provider
        .synthesize(harness.request, controller.signal)
        [Symbol.asyncIterator]();
      expect((await iterator.next()).done).toBe(false);
      const reason = new Error('caller went away');
      controller.abort(reason);
      await expect(iterator.next()).rejects.toBe(reason);
      expect(await fake.requests[0]?.ended).toBe('client_closed');
      expect(fake.requests[0]?.audioBytesSent).toBeLessThan(
        (await fullLength(provider, harness.request)) ?? Number.POSITIVE_INFINITY,
      );
    });

    // Timeouts far beyond the test's own: only the abort can end these exchanges in time.
    const patient = { timeouts: { firstByteTimeoutMs: 120_000, idleTimeoutMs: 120_000 } };

    it('abort while waiting for the first byte closes the request and throws signal.reason', async () => {
      const { fake, provider } = await setup(patient);
      fake.failNext({ kind: 'hang' });
      const controller = new AbortController();
      const pending = outcomeOf(provider.synthesize(harness.request, controller.signal));
      await waitFor(() => fake.requests.length === 1, { what: 'the vendor to get the request' });
      const reason = new Error('stop');
      controller.abort(reason);
      const outcome = await pending;
      expect(outcome.error).toBe(reason);
      expect(await fake.requests[0]?.ended).toBe('client_closed');
    });

    it('abort while waiting for the next chunk closes the connection and throws signal.reason', async () => {
      const { fake, provider } = await setup(patient);
      fake.failNext({ kind: 'stall_after_bytes', bytes: 4000 });
      const controller = new AbortController();
      const iterator = provider
        .synthesize(harness.request, controller.signal)
        [Symbol.asyncIterator]();
      let received = 0;
      while (received < 4000) {
        const result = await iterator.next();
        if (result.done) throw new Error('stream ended early');
        received += result.value.data.byteLength;
      }
      // The vendor has gone silent: this read waits until the abort.
      const pending = iterator.next();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const reason = new Error('caller went away');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect(await fake.requests[0]?.ended).toBe('client_closed');
    });

    it('breaking out of the loop closes the upstream connection', async () => {
      const { fake, provider } = await setup();
      for await (const _ of provider.synthesize(harness.request, signal())) break;
      expect(await fake.requests[0]?.ended).toBe('client_closed');
      expect(provider.stats.active).toBe(0);
    });
  });

  describe(`${harness.name} concurrency bound`, () => {
    it('sends at most maxConcurrentRequests at once and queues the rest in order', async () => {
      const { fake, provider } = await setup({ maxConcurrentRequests: 2 });
      fake.holdResponses();
      const texts = ['First one.', 'Second one.', 'Third one.', 'Fourth one.'];
      const runs = texts.map((text) =>
        outcomeOf(provider.synthesize({ ...harness.request, text }, signal())),
      );
      await waitFor(() => fake.requests.length === 2 && provider.stats.waiting === 2, {
        what: 'two requests at the vendor and two waiting',
      });
      expect(provider.stats).toMatchObject({ limit: 2, active: 2, waiting: 2 });
      expect(fake.requests).toHaveLength(2);
      fake.releaseResponses();
      const outcomes = await Promise.all(runs);
      for (const outcome of outcomes) {
        expect(outcome.error).toBeUndefined();
        expect(outcome.bytes).toBeGreaterThan(0);
      }
      expect(fake.maxInFlight).toBe(2);
      // The first two go out together (either may arrive first), the queued two after them.
      const sent = fake.requests.map(harness.spokenText);
      expect(sent.slice(0, 2).sort()).toEqual(
        [texts[0], texts[1]].map((text) => expect.stringContaining(text!)),
      );
      expect(sent.slice(2).sort()).toEqual(
        [texts[3], texts[2]].map((text) => expect.stringContaining(text!)),
      );
      expect(provider.stats).toMatchObject({ active: 0, waiting: 0 });
    });

    it('a request aborted while queued leaves the queue and is never sent', async () => {
      const { fake, provider } = await setup({ maxConcurrentRequests: 1 });
      fake.holdResponses();
      const first = outcomeOf(provider.synthesize({ ...harness.request, text: 'Held.' }, signal()));
      const controller = new AbortController();
      const queued = outcomeOf(
        provider.synthesize({ ...harness.request, text: 'Queued.' }, controller.signal),
      );
      const third = outcomeOf(
        provider.synthesize({ ...harness.request, text: 'Third.' }, signal()),
      );
      await waitFor(() => provider.stats.waiting === 2, { what: 'two requests waiting' });
      const reason = new Error('no longer needed');
      controller.abort(reason);
      expect((await queued).error).toBe(reason);
      expect(provider.stats.waiting).toBe(1);
      fake.releaseResponses();
      expect((await first).error).toBeUndefined();
      expect((await third).error).toBeUndefined();
      expect(fake.requests.map(harness.spokenText)).toEqual([
        expect.stringContaining('Held.'),
        expect.stringContaining('Third.'),
      ]);
    });

    it('frees the slot after a failure', async () => {
      const { fake, provider } = await setup({ maxConcurrentRequests: 1 });
      fake.failNext({ kind: 'reset_after_bytes', bytes: 2000 });
      const failed = await outcomeOf(provider.synthesize(harness.request, signal()));
      expectFailure(failed.error, 'unavailable', fake.apiKey);
      const served = await outcomeOf(provider.synthesize(harness.request, signal()));
      expect(served.error).toBeUndefined();
      expect(provider.stats.active).toBe(0);
    });
  });

  describe(`${harness.name} keep-alive`, () => {
    it('sequential requests share one TCP connection', async () => {
      const { fake, provider } = await setup();
      for (let i = 0; i < 3; i++) {
        const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
        expect(outcome.error).toBeUndefined();
      }
      expect(fake.requests).toHaveLength(3);
      expect(fake.connectionCount).toBe(1);
      expect(new Set(fake.requests.map((r) => r.connectionId))).toEqual(new Set([1]));
      expect(fake.requests.map((r) => r.headers.connection)).toEqual([
        'keep-alive',
        'keep-alive',
        'keep-alive',
      ]);
    });

    it('a connection closed by an abort is not reused', async () => {
      const { fake, provider } = await setup();
      for await (const _ of provider.synthesize(harness.request, signal())) break;
      const outcome = await outcomeOf(provider.synthesize(harness.request, signal()));
      expect(outcome.error).toBeUndefined();
      expect(fake.requests.map((r) => r.connectionId)).toEqual([1, 2]);
    });
  });
}

/** Bytes of the full answer to `request` (read once, uninterrupted). */
async function fullLength(
  provider: TtsProvider,
  request: SynthesisRequest,
): Promise<number | undefined> {
  const outcome = await outcomeOf(provider.synthesize(request, new AbortController().signal));
  return outcome.error === undefined ? outcome.bytes : undefined;
}
