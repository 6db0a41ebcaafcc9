import { describe, expect, it } from 'vitest';
import { SttError } from '../../../src/stt/errors.ts';
import {
  STT_SAMPLE_RATE_HZ,
  type SttEvent,
  type SttProvider,
  type SttStream,
} from '../../../src/stt/provider.ts';
import { speechPcm } from '../../fakes/speech-audio.ts';
import { wordErrorRate } from '../../helpers/wer.ts';

/** An engine under the shared suite. */
export interface SttConformanceTarget {
  provider: SttProvider;
  /** Tells a fake what the next utterance says; a real engine ignores it. */
  willHear(text: string): void;
  /** Largest word error rate accepted for one of the suite's sentences. */
  maxWer: number;
}

const FIRST = 'What is the weather like today in Paris?';
const SECOND = 'Turn off the lights in the kitchen.';

/** espeak-ng speech of `text` as 16 kHz samples. */
export async function speechSamples(text: string): Promise<Int16Array> {
  const pcm = await speechPcm(text, STT_SAMPLE_RATE_HZ);
  return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2).slice();
}

/** Pushes `samples` in 20 ms frames, as LiveKit delivers them. */
export function pushFrames(stream: SttStream, samples: Int16Array): void {
  for (let offset = 0; offset < samples.length; offset += 320) {
    stream.pushAudio(samples.subarray(offset, offset + 320));
  }
}

/** Every event of `stream` until it ends. */
export async function collect(stream: AsyncIterable<SttEvent>): Promise<SttEvent[]> {
  const events: SttEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function ms(samples: Int16Array): number {
  return (samples.length * 1000) / STT_SAMPLE_RATE_HZ;
}

/**
 * The behaviour every `SttProvider` shares. `target()` gives the engine of the current
 * test (set up by the caller's hooks).
 */
export function describeSttConformance(name: string, target: () => SttConformanceTarget): void {
  describe(`${name}: SttProvider conformance`, () => {
    it('transcribes one utterance with offsets relative to its first sample', async () => {
      const { provider, willHear, maxWer } = target();
      const samples = await speechSamples(FIRST);
      willHear(FIRST);
      const result = await provider.transcribe(
        samples,
        { language: 'en' },
        new AbortController().signal,
      );
      expect(wordErrorRate(FIRST, result.text)).toBeLessThanOrEqual(maxWer);
      expect(result.language).toBe('en');
      expect(result.startMs).toBe(0);
      expect(result.endMs).toBeCloseTo(ms(samples), 0);
      if (result.confidence !== undefined) {
        expect(result.confidence).toBeGreaterThan(0);
        expect(result.confidence).toBeLessThanOrEqual(1);
      }
    });

    it('streams two utterances: finals in order, one flushed per flush, stream offsets', async () => {
      const { provider, willHear, maxWer } = target();
      const first = await speechSamples(FIRST);
      const second = await speechSamples(SECOND);
      const stream = provider.stream({ language: 'en' }, new AbortController().signal);
      willHear(FIRST);
      pushFrames(stream, first);
      stream.flush();
      willHear(SECOND);
      pushFrames(stream, second);
      stream.flush();
      stream.end();
      const events = await collect(stream);

      const flushedAt = events.flatMap((e, i) => (e.type === 'flushed' ? [i] : []));
      expect(flushedAt).toHaveLength(2);
      const [firstEnd = 0, secondEnd = 0] = flushedAt;
      const finalsOf = (from: number, to: number) =>
        events
          .slice(from, to)
          .filter((e): e is Extract<SttEvent, { type: 'final' }> => e.type === 'final');
      const firstFinals = finalsOf(0, firstEnd);
      const secondFinals = finalsOf(firstEnd, secondEnd);
      const text = (finals: typeof firstFinals) => finals.map((f) => f.text).join(' ');
      expect(wordErrorRate(FIRST, text(firstFinals))).toBeLessThanOrEqual(maxWer);
      expect(wordErrorRate(SECOND, text(secondFinals))).toBeLessThanOrEqual(maxWer);
      // Offsets count from the stream's first sample.
      expect(firstFinals[0]?.startMs).toBeCloseTo(0, 0);
      expect(firstFinals.at(-1)?.endMs).toBeCloseTo(ms(first), 0);
      expect(secondFinals[0]?.startMs).toBeCloseTo(ms(first), 0);
      expect(secondFinals.at(-1)?.endMs).toBeCloseTo(ms(first) + ms(second), 0);
      expect(events.slice(secondEnd + 1)).toEqual([]);

      const interims = events.filter((e) => e.type === 'interim');
      if (provider.capabilities.interimResults) expect(interims.length).toBeGreaterThan(0);
      else expect(interims).toEqual([]);
    });

    it('answers a flush without audio with flushed alone', async () => {
      const { provider } = target();
      const stream = provider.stream({ language: 'en' }, new AbortController().signal);
      stream.flush();
      stream.end();
      expect(await collect(stream)).toEqual([{ type: 'flushed' }]);
    });

    it('finalizes pending audio at end() without a flush', async () => {
      const { provider, willHear, maxWer } = target();
      const samples = await speechSamples(SECOND);
      const stream = provider.stream({ language: 'en' }, new AbortController().signal);
      willHear(SECOND);
      pushFrames(stream, samples);
      stream.end();
      const finals = (await collect(stream)).filter((e) => e.type === 'final');
      expect(finals.length).toBeGreaterThan(0);
      expect(wordErrorRate(SECOND, finals.map((f) => f.text).join(' '))).toBeLessThanOrEqual(
        maxWer,
      );
    });

    it('ends the iteration with cancelled when the signal aborts', async () => {
      const { provider, willHear } = target();
      const samples = await speechSamples(FIRST);
      const controller = new AbortController();
      const stream = provider.stream({ language: 'en' }, controller.signal);
      willHear(FIRST);
      pushFrames(stream, samples);
      stream.flush();
      // Without the abort the stream would go on to its final: ending here with
      // `cancelled` (not a result, not the test's timeout) is the observable effect.
      setTimeout(() => controller.abort(), 20);
      const error = await collect(stream).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SttError);
      expect((error as SttError).failure).toBe('cancelled');
    });

    it('rejects transcribe with cancelled when the signal is already aborted', async () => {
      const { provider } = target();
      const controller = new AbortController();
      controller.abort();
      const samples = await speechSamples(FIRST);
      await expect(provider.transcribe(samples, {}, controller.signal)).rejects.toMatchObject({
        name: 'SttError',
        failure: 'cancelled',
        retryable: false,
      });
    });
  });
}
