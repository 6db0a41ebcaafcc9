// The client library's caption state (`transcriptProgress`) from the `lk.transcription`
// streams the worker sends for an Agent reply (worker/agent-session/captions.ts): a delta
// stream with one chunk per word as its audio reaches the user, then a stream of the same
// segment marked final with the words heard. The streams are fed as they arrive from the
// room, in the order the worker sends them, with a late chunk trailing the final stream.
import { describe, expect, it } from 'vitest';
import type { TranscriptProgressEvent } from '../../../client-sdk/src/events.ts';
import { CaptionSegments } from '../../../client-sdk/src/internal/captions.ts';

/** A text stream as the room delivers it: chunks pushed by the test, read by the library. */
class Stream implements AsyncIterable<string> {
  readonly #chunks: string[] = [];
  #ended = false;
  #wake: (() => void) | undefined;

  push(chunk: string): void {
    this.#chunks.push(chunk);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const chunk = this.#chunks.shift();
      if (chunk !== undefined) yield chunk;
      else if (this.#ended) return;
      else await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}

/** Lets the library's readers take what was pushed. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('transcriptProgress of an Agent reply (client library)', () => {
  it('steps one word at a time and ends at exactly the heard words when the reply is interrupted', async () => {
    const events: TranscriptProgressEvent[] = [];
    const captions = new CaptionSegments((event) => events.push(event));
    const delta = new Stream();
    const reading = captions.read(delta, 'SG_1', 'agent', false);
    for (const word of ['The', ' year', ' 1987']) {
      delta.push(word);
      await settle();
    }
    // The user interrupts: the delta stream closes; the final stream holds the heard words
    // ("was" started playing just before the cut, its caption was not due yet).
    delta.end();
    await reading;
    const final = new Stream();
    const finishing = captions.read(final, 'SG_1', 'agent', true);
    final.push('The year 1987 was');
    final.end();
    await finishing;

    expect(events).toEqual([
      { segmentId: 'SG_1', role: 'agent', text: 'The', final: false },
      { segmentId: 'SG_1', role: 'agent', text: 'The year', final: false },
      { segmentId: 'SG_1', role: 'agent', text: 'The year 1987', final: false },
      { segmentId: 'SG_1', role: 'agent', text: 'The year 1987 was', final: false },
      { segmentId: 'SG_1', role: 'agent', text: 'The year 1987 was', final: true },
    ]);
  });

  it('keeps the final text last when a word of the delta stream trails in after it', async () => {
    const events: TranscriptProgressEvent[] = [];
    const captions = new CaptionSegments((event) => events.push(event));
    const delta = new Stream();
    const reading = captions.read(delta, 'SG_2', 'agent', false);
    delta.push('Ships');
    await settle();
    const final = new Stream();
    const finishing = captions.read(final, 'SG_2', 'agent', true);
    final.push('Ships passing');
    final.end();
    await finishing;
    delta.push(' passing');
    delta.push(' at');
    delta.end();
    await reading;
    // Another segment is not affected.
    const next = new Stream();
    const nextReading = captions.read(next, 'SG_3', 'agent', false);
    next.push('Hello');
    next.end();
    await nextReading;

    expect(events).toEqual([
      { segmentId: 'SG_2', role: 'agent', text: 'Ships', final: false },
      { segmentId: 'SG_2', role: 'agent', text: 'Ships passing', final: false },
      { segmentId: 'SG_2', role: 'agent', text: 'Ships passing', final: true },
      { segmentId: 'SG_3', role: 'agent', text: 'Hello', final: false },
    ]);
  });

  it('says nothing for a reply cut before its first word', async () => {
    const events: TranscriptProgressEvent[] = [];
    const captions = new CaptionSegments((event) => events.push(event));
    const delta = new Stream();
    const reading = captions.read(delta, 'SG_4', 'agent', false);
    delta.end();
    await reading;
    expect(events).toEqual([]);
  });
});
