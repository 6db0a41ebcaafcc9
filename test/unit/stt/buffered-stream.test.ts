import { describe, expect, it } from 'vitest';
import {
  BufferedSttStream,
  type BufferedSttStreamOptions,
  type TranscribeUtterance,
} from '../../../src/stt/buffered-stream.ts';
import { cancelledError } from '../../../src/stt/errors.ts';
import type { SttEvent, SttTranscript } from '../../../src/stt/provider.ts';

/** 10 ms at 16 kHz. */
const FRAME = 160;

/** A 10 ms frame whose samples all hold `id`. */
function frame(id: number): Int16Array {
  return new Int16Array(FRAME).fill(id);
}

/** One engine call: what it was given and how to answer it. */
interface Call {
  /** Frame ids of the audio, one per 10 ms. */
  ids: number[];
  signal: AbortSignal;
  answer(text: string): void;
  fail(error: unknown): void;
}

/**
 * An utterance engine the test answers by hand: each call waits until the test settles it,
 * as a transcription that takes time does.
 */
function engine() {
  const calls: Call[] = [];
  const waiters: (() => void)[] = [];
  const transcribe = (samples: Int16Array, _options: unknown, signal: AbortSignal) =>
    new Promise<SttTranscript>((resolve, reject) => {
      if (signal.aborted) {
        reject(cancelledError());
        return;
      }
      signal.addEventListener('abort', () => reject(cancelledError()), { once: true });
      const ids: number[] = [];
      for (let i = 0; i < samples.length; i += FRAME) ids.push(samples[i] as number);
      calls.push({
        ids,
        signal,
        answer: (text) =>
          resolve({
            text,
            language: 'en',
            startMs: 0,
            endMs: (samples.length * 1000) / 16_000,
            confidence: undefined,
          }),
        fail: reject,
      });
      waiters.splice(0).forEach((wake) => {
        wake();
      });
    });
  /** Resolves once the engine has received its `n`th call. */
  const called = async (n: number): Promise<Call> => {
    while (calls.length < n) await new Promise<void>((wake) => waiters.push(wake));
    return calls[n - 1] as Call;
  };
  return { transcribe, calls, called };
}

async function collect(stream: AsyncIterable<SttEvent>): Promise<SttEvent[]> {
  const events: SttEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function push(stream: BufferedSttStream, ids: number[]): void {
  for (const id of ids) stream.pushAudio(frame(id));
}

/**
 * A stream over `transcribe` (early start on unless `options` say otherwise), its events
 * once it ends, and what became of its early starts.
 */
function open(transcribe: TranscribeUtterance, options: BufferedSttStreamOptions = {}) {
  const outcomes: string[] = [];
  const stream = new BufferedSttStream(transcribe, {}, new AbortController().signal, {
    earlyStart: true,
    onEarlyStart: (outcome) => outcomes.push(outcome),
    ...options,
  });
  return { stream, events: collect(stream), outcomes };
}

describe('BufferedSttStream: early start at a pause', () => {
  it('transcribes at the pause and answers the flush with that transcript, once', async () => {
    const { transcribe, calls, called } = engine();
    const { stream, events, outcomes } = open(transcribe);
    push(stream, [1, 2, 3]);
    stream.silenceStarted();
    const early = await called(1);
    // The engine starts on the speech so far, before the utterance ends.
    expect(early.ids).toEqual([1, 2, 3]);
    push(stream, [0, 0]); // the rest of the pause, until the VAD's end of speech
    stream.flush();
    stream.end();
    early.answer('hello there');
    expect(await events).toEqual([
      {
        type: 'final',
        endpoint: false,
        text: 'hello there',
        language: 'en',
        startMs: 0,
        endMs: 50,
        confidence: undefined,
      },
      { type: 'flushed' },
    ]);
    expect(calls).toHaveLength(1);
    expect(outcomes).toEqual(['used']);
  });

  it('abandons the early start when speech resumes, and transcribes the whole utterance at the flush', async () => {
    const { transcribe, calls, called } = engine();
    const { stream, events, outcomes } = open(transcribe);
    push(stream, [1, 2]);
    stream.silenceStarted();
    const early = await called(1);
    push(stream, [0]);
    stream.speechResumed();
    expect(early.signal.aborted).toBe(true);
    push(stream, [3, 4]);
    stream.flush();
    const whole = await called(2);
    expect(whole.ids).toEqual([1, 2, 0, 3, 4]);
    whole.answer('hello there my friend');
    stream.end();
    const finals = (await events).filter((e) => e.type === 'final');
    expect(finals.map((e) => [e.text, e.startMs, e.endMs])).toEqual([
      ['hello there my friend', 0, 50],
    ]);
    expect(calls).toHaveLength(2);
    expect(outcomes).toEqual(['abandoned']);
  });

  it('takes the latest of two pauses when the first one was resumed', async () => {
    const { transcribe, calls, called } = engine();
    const { stream, events, outcomes } = open(transcribe);
    push(stream, [1]);
    stream.silenceStarted();
    await called(1);
    stream.speechResumed();
    push(stream, [2]);
    stream.silenceStarted();
    const second = await called(2);
    expect(second.ids).toEqual([1, 2]);
    push(stream, [0]);
    stream.flush();
    second.answer('one two');
    stream.end();
    const finals = (await events).filter((e) => e.type === 'final');
    expect(finals.map((e) => [e.text, e.endMs])).toEqual([['one two', 30]]);
    expect(calls).toHaveLength(2);
    expect(outcomes).toEqual(['abandoned', 'used']);
  });

  it('waits for the utterance before it, so finals stay in audio order', async () => {
    const { transcribe, called } = engine();
    const { stream, events } = open(transcribe);
    push(stream, [1]);
    stream.flush();
    const first = await called(1);
    push(stream, [2]);
    stream.silenceStarted();
    stream.flush();
    // The early start has not reached the engine while the first utterance is being heard.
    await new Promise((resolve) => setImmediate(resolve));
    first.answer('first');
    const second = await called(2);
    expect(second.ids).toEqual([2]);
    second.answer('second');
    stream.end();
    const finals = (await events).filter((e) => e.type === 'final');
    expect(finals.map((e) => [e.text, e.startMs, e.endMs])).toEqual([
      ['first', 0, 10],
      ['second', 10, 20],
    ]);
  });

  it('fails the stream with the error of an early start its flush used', async () => {
    const { transcribe, called } = engine();
    const { stream, events } = open(transcribe);
    push(stream, [1]);
    stream.silenceStarted();
    const early = await called(1);
    stream.flush();
    early.fail(new Error('the engine died'));
    await expect(events).rejects.toThrow('the engine died');
  });

  it('ignores pauses without earlyStart (a paid endpoint bills every request)', async () => {
    const { transcribe, calls, called } = engine();
    const { stream, events, outcomes } = open(transcribe, { earlyStart: false });
    push(stream, [1, 2]);
    stream.silenceStarted();
    push(stream, [0]);
    stream.flush();
    const only = await called(1);
    expect(only.ids).toEqual([1, 2, 0]);
    only.answer('hello');
    stream.end();
    await events;
    expect(calls).toHaveLength(1);
    expect(outcomes).toEqual([]);
  });

  it('drops an early start that the length bound overtook', async () => {
    const { transcribe, calls, called } = engine();
    // 30 ms bound: the third frame cuts the utterance.
    const { stream, events, outcomes } = open(transcribe, { maxUtteranceMs: 30 });
    push(stream, [1, 2]);
    stream.silenceStarted();
    const early = await called(1);
    push(stream, [3]);
    expect(early.signal.aborted).toBe(true);
    const cut = await called(2);
    expect(cut.ids).toEqual([1, 2, 3]);
    cut.answer('one two three');
    push(stream, [4]);
    stream.flush();
    const rest = await called(3);
    expect(rest.ids).toEqual([4]);
    rest.answer('four');
    stream.end();
    const finals = (await events).filter((e) => e.type === 'final');
    expect(finals.map((e) => e.text)).toEqual(['one two three', 'four']);
    expect(calls).toHaveLength(3);
    expect(outcomes).toEqual(['abandoned']);
  });
});

describe('BufferedSttStream: preflight transcripts', () => {
  /** A stream with early start and the `preflight` option. */
  const withPreflight = (transcribe: TranscribeUtterance) =>
    new BufferedSttStream(transcribe, { preflight: true }, new AbortController().signal, {
      earlyStart: true,
    });

  it('yields the transcript of the pause as soon as it is ready, before the end of speech', async () => {
    const { transcribe, calls, called } = engine();
    const stream = withPreflight(transcribe);
    const events = stream[Symbol.asyncIterator]();
    push(stream, [1, 2, 3]);
    stream.silenceStarted();
    (await called(1)).answer('what is the weather');
    // The VAD has not ended the utterance yet: no flush, and the preflight is out.
    expect((await events.next()).value).toEqual({
      type: 'preflight',
      text: 'what is the weather',
      language: 'en',
      startMs: 0,
      endMs: 30,
      confidence: undefined,
    });
    push(stream, [0, 0]);
    stream.flush();
    stream.end();
    const rest: SttEvent[] = [];
    for (let next = await events.next(); !next.done; next = await events.next()) {
      rest.push(next.value);
    }
    // The end of speech takes the same transcript as its final; the engine ran once.
    expect(rest.map((e) => [e.type, 'text' in e ? e.text : ''])).toEqual([
      ['final', 'what is the weather'],
      ['flushed', ''],
    ]);
    expect(calls).toHaveLength(1);
  });

  it('yields none for a pause the user spoke over before its transcript was ready', async () => {
    const { transcribe, called } = engine();
    const stream = withPreflight(transcribe);
    const events = collect(stream);
    push(stream, [1, 2]);
    stream.silenceStarted();
    const early = await called(1);
    stream.speechResumed();
    early.answer('what is');
    push(stream, [3, 4]);
    stream.flush();
    (await called(2)).answer('what is the weather');
    stream.end();
    expect((await events).map((e) => [e.type, 'text' in e ? e.text : ''])).toEqual([
      ['final', 'what is the weather'],
      ['flushed', ''],
    ]);
  });
});
