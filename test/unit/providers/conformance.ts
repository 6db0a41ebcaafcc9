import { describe, expect, it } from 'vitest';
import type { PcmChunk } from '../../../media/pcm.ts';
import type { SynthesisRequest, TtsProvider } from '../../../src/tts/providers/provider.ts';
import { peak, rms, summarize } from './pcm-stats.ts';

/** Optional probes a provider's test can pass to make the suite stricter. */
export interface ConformanceOptions {
  /**
   * Units of work started so far (subprocesses spawned, upstream requests sent). When
   * given, the suite checks that an already-aborted signal starts none.
   */
  readonly workStarted?: () => number;
  /** A request long enough to be aborted mid-stream; defaults to the sample request. */
  readonly longRequest?: SynthesisRequest;
  /**
   * How long the iterator may take to settle after an abort before the suite calls it a
   * hang. More audio after the abort fails on its own, whenever it comes, so this only has
   * to catch an iterator that never settles. Default 10 s.
   */
  readonly abortGraceMs?: number;
}

/** Rejects when `promise` has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The behaviour every `TtsProvider` must show, as one vitest suite. Call it from a test
 * file of each provider (native, or an upstream adapter against its fake):
 *
 * @example
 * runProviderConformance('native', () => new NativeProvider(), { text: 'Hello.', providerVoiceId: 'en-us' });
 */
export function runProviderConformance(
  name: string,
  makeProvider: () => TtsProvider | Promise<TtsProvider>,
  sampleRequest: SynthesisRequest,
  options: ConformanceOptions = {},
): void {
  const graceMs = options.abortGraceMs ?? 10_000;
  const longRequest = options.longRequest ?? sampleRequest;

  describe(`TtsProvider conformance: ${name}`, () => {
    it('has a name', async () => {
      const provider = await makeProvider();
      expect(provider.name).toMatch(/^[a-z][a-z0-9_-]*$/);
    });

    it('yields even-length PCM chunks at one sane sample rate', async () => {
      const provider = await makeProvider();
      const chunks: PcmChunk[] = [];
      for await (const chunk of provider.synthesize(sampleRequest, new AbortController().signal)) {
        chunks.push(chunk);
      }
      expect(chunks.length).toBeGreaterThan(0);
      const rates = new Set(chunks.map((chunk) => chunk.sampleRateHz));
      expect(rates.size).toBe(1);
      const [rate] = rates;
      expect(Number.isInteger(rate)).toBe(true);
      expect(rate).toBeGreaterThanOrEqual(8000);
      expect(rate).toBeLessThanOrEqual(192_000);
      for (const chunk of chunks) {
        expect(Buffer.isBuffer(chunk.data)).toBe(true);
        expect(chunk.data.length % 2).toBe(0);
      }
    });

    it('produces non-silent audio', async () => {
      const provider = await makeProvider();
      const chunks: PcmChunk[] = [];
      for await (const chunk of provider.synthesize(sampleRequest, new AbortController().signal)) {
        chunks.push(chunk);
      }
      const audio = summarize(chunks);
      expect(audio.durationMs).toBeGreaterThan(200);
      expect(peak(audio.pcm)).toBeGreaterThan(1000);
      expect(rms(audio.pcm)).toBeGreaterThan(100);
    });

    it('stops promptly when aborted mid-stream and throws signal.reason (or ends)', async () => {
      const provider = await makeProvider();
      const controller = new AbortController();
      const iterator = provider.synthesize(longRequest, controller.signal)[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.done).toBe(false);
      const reason = new Error('caller went away');
      controller.abort(reason);
      const outcome = await within(
        iterator.next().then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
        graceMs,
        'next() after abort',
      );
      if ('error' in outcome) {
        expect(outcome.error).toBe(reason);
      } else {
        // Ending is allowed, yielding more audio after the abort is not.
        expect(outcome.result.done).toBe(true);
      }
      const after = await within(
        iterator.next().catch(() => ({ done: true as const, value: undefined })),
        graceMs,
        'next() after the end',
      );
      expect(after.done).toBe(true);
    });

    it('does no work when the signal is already aborted', async () => {
      const provider = await makeProvider();
      const workBefore = options.workStarted?.();
      const controller = new AbortController();
      const reason = new Error('aborted before start');
      controller.abort(reason);
      let chunks = 0;
      let thrown: unknown;
      try {
        for await (const _ of provider.synthesize(sampleRequest, controller.signal)) chunks += 1;
      } catch (error) {
        thrown = error;
      }
      expect(chunks).toBe(0);
      if (thrown !== undefined) expect(thrown).toBe(reason);
      if (options.workStarted !== undefined) expect(options.workStarted()).toBe(workBefore);
    });

    it('can stop early (break) and still serve the next request', async () => {
      const provider = await makeProvider();
      for await (const _ of provider.synthesize(longRequest, new AbortController().signal)) break;
      const chunks: PcmChunk[] = [];
      for await (const chunk of provider.synthesize(sampleRequest, new AbortController().signal)) {
        chunks.push(chunk);
      }
      expect(summarize(chunks).durationMs).toBeGreaterThan(200);
    });
  });
}
