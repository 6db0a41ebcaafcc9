// The capture AudioWorklet of the transcription client, exactly as shipped (its source
// text), run in a Node VM context that plays the AudioWorkletGlobalScope: 16-bit conversion,
// resampling from the usual context rates to 16 kHz, chunking, mute and drain.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  PCM_CAPTURE_PROCESSOR,
  PCM_CAPTURE_WORKLET_SOURCE,
} from '../../../../client-sdk/src/transcription/worklet-source.ts';

const QUANTUM = 128;

type Message = { type: 'audio'; pcm: ArrayBuffer } | { type: 'drained'; id: number };

interface Processor {
  process(inputs: Float32Array[][]): boolean;
  port: { onmessage: ((event: { data: unknown }) => void) | null };
}

/** One processor instance in a fresh scope at `contextRate`, and what it posts. */
function capture(contextRate: number, outputRate = 16_000, chunkSamples = 800) {
  const posted: Message[] = [];
  let registered: { name: string; ctor: new (options: unknown) => Processor } | undefined;
  class AudioWorkletProcessor {
    port = {
      onmessage: null as ((event: { data: unknown }) => void) | null,
      postMessage: (message: Message, transfer?: ArrayBuffer[]) => {
        // A transferred buffer must be the whole message payload, never a shared view.
        if (message.type === 'audio') expect(transfer).toEqual([message.pcm]);
        posted.push(message);
      },
    };
  }
  const scope = vm.createContext({
    sampleRate: contextRate,
    AudioWorkletProcessor,
    registerProcessor: (name: string, ctor: new (options: unknown) => Processor) => {
      registered = { name, ctor };
    },
  });
  vm.runInContext(PCM_CAPTURE_WORKLET_SOURCE, scope);
  expect(registered?.name).toBe(PCM_CAPTURE_PROCESSOR);
  const Ctor = registered?.ctor as new (options: unknown) => Processor;
  const processor = new Ctor({ processorOptions: { outputRate, chunkSamples } });
  const send = (data: unknown) => processor.port.onmessage?.({ data });
  /** Feeds `samples` in render quanta of 128, as the audio graph does. */
  const feed = (samples: Float32Array) => {
    for (let offset = 0; offset < samples.length; offset += QUANTUM) {
      expect(processor.process([[samples.subarray(offset, offset + QUANTUM)]])).toBe(true);
    }
  };
  const chunks = () =>
    posted
      .filter((m): m is Extract<Message, { type: 'audio' }> => m.type === 'audio')
      .map((m) => new Int16Array(m.pcm));
  const output = () => Int16Array.from(chunks().flatMap((c) => [...c]));
  return { processor, posted, send, feed, chunks, output };
}

function sine(rate: number, frequency: number, seconds: number, amplitude = 0.5): Float32Array {
  const samples = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < samples.length; i++) {
    samples[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / rate);
  }
  return samples;
}

/** Amplitude of `frequency` in `pcm` (16-bit, at `rate`), by correlation; 1 is full scale. */
function amplitudeAt(pcm: Int16Array, rate: number, frequency: number): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < pcm.length; i++) {
    const angle = (2 * Math.PI * frequency * i) / rate;
    re += ((pcm[i] as number) / 32768) * Math.cos(angle);
    im += ((pcm[i] as number) / 32768) * Math.sin(angle);
  }
  return (2 * Math.hypot(re, im)) / pcm.length;
}

describe('the PCM capture worklet', () => {
  it('converts floats to 16-bit integers, clamping out-of-range samples', () => {
    const { feed, send, output } = capture(16_000);
    feed(Float32Array.from([-1.5, -1, -0.5, 0, 0.25, 0.5, 1, 2]));
    send({ type: 'drain', id: 1 });
    expect([...output()]).toEqual([-32768, -32768, -16384, 0, 8192, 16384, 32767, 32767]);
  });

  it('passes 16 kHz through in chunks of the given size, and drains the partial chunk', () => {
    const { feed, send, chunks, posted } = capture(16_000);
    const input = sine(16_000, 440, 0.13);
    feed(input);
    expect(chunks().map((c) => c.length)).toEqual([800, 800]);
    send({ type: 'drain', id: 7 });
    expect(chunks().map((c) => c.length)).toEqual([800, 800, input.length - 1600]);
    expect(posted.at(-1)).toEqual({ type: 'drained', id: 7 });
    // A drain with nothing pending posts only its answer.
    send({ type: 'drain', id: 8 });
    expect(chunks()).toHaveLength(3);
    expect(posted.at(-1)).toEqual({ type: 'drained', id: 8 });
  });

  it.each([48_000, 44_100, 24_000, 22_050])(
    'resamples %i Hz to 16 kHz: the same tone, its level kept, one output per input period',
    (rate) => {
      const seconds = 1;
      const { feed, send, output } = capture(rate);
      const input = sine(rate, 1000, seconds);
      feed(input);
      send({ type: 'drain', id: 1, final: true });
      const pcm = output();
      // Every input sample is covered, and nothing more: floor((N - 1) * 16000 / rate) + 1.
      expect(pcm.length).toBe(Math.floor(((input.length - 1) * 16_000) / rate) + 1);
      // Away from the edges the output is the 1 kHz sine sampled at 16 kHz.
      const middle = pcm.subarray(800, pcm.length - 800);
      expect(amplitudeAt(middle, 16_000, 1000)).toBeCloseTo(0.5, 2);
      let worst = 0;
      for (let i = 800; i < pcm.length - 800; i++) {
        const expected = 0.5 * Math.sin((2 * Math.PI * 1000 * i) / 16_000);
        worst = Math.max(worst, Math.abs((pcm[i] as number) / 32768 - expected));
      }
      expect(worst).toBeLessThan(0.005);
    },
  );

  it('filters what 16 kHz cannot carry instead of folding it into speech frequencies', () => {
    const { feed, send, output } = capture(48_000);
    // 12 kHz would alias to 4 kHz at 16 kHz without the low-pass filter.
    feed(sine(48_000, 12_000, 1));
    send({ type: 'drain', id: 1, final: true });
    const pcm = output();
    expect(amplitudeAt(pcm, 16_000, 4000)).toBeLessThan(0.5 * 0.01);
  });

  it('gives the same samples whatever the render quantum boundaries', () => {
    const input = sine(44_100, 523, 0.5);
    const whole = capture(44_100);
    whole.processor.process([[input]]);
    whole.send({ type: 'drain', id: 1, final: true });
    const quanta = capture(44_100);
    quanta.feed(input);
    quanta.send({ type: 'drain', id: 1, final: true });
    expect([...quanta.output()]).toEqual([...whole.output()]);
  });

  it('sends silence in place of the input while muted, and stops after the final drain', () => {
    const { processor, feed, send, output, posted } = capture(16_000);
    send({ type: 'mute', muted: true });
    feed(sine(16_000, 440, 0.01));
    send({ type: 'mute', muted: false });
    feed(Float32Array.from([0.5]));
    send({ type: 'drain', id: 3, final: true });
    expect([...output()]).toEqual([...new Array(160).fill(0), 16384]);
    expect(posted.at(-1)).toEqual({ type: 'drained', id: 3 });
    expect(processor.process([[new Float32Array(QUANTUM)]])).toBe(false);
  });

  it('ignores an input without channels (a source that is not playing)', () => {
    const { processor, send, posted } = capture(48_000);
    expect(processor.process([[]])).toBe(true);
    expect(processor.process([])).toBe(true);
    send({ type: 'drain', id: 1 });
    expect(posted).toEqual([{ type: 'drained', id: 1 }]);
  });
});
