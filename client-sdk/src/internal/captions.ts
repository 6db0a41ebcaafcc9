import type { TranscriptProgressEvent, TranscriptRole } from '../events.ts';

/** How many finished segments are remembered (a late chunk only trails the last few). */
const FINISHED_KEPT = 64;

/**
 * Turns `lk.transcription` streams into `transcriptProgress` events. Each chunk of a stream
 * adds to the segment's text: the worker sends the Agent's caption a word at a time, each
 * as its audio reaches the user, so there is one event per word. A stream marked final
 * carries the segment's whole text and ends it: for an interrupted reply, exactly the words
 * heard. Once a segment's final event is out, chunks of its earlier stream that still trail
 * in are dropped, so the final text stays the last one; a stream that ends without text
 * and without the final mark says nothing.
 */
export class CaptionSegments {
  readonly #finished: string[] = [];

  constructor(private readonly emit: (event: TranscriptProgressEvent) => void) {}

  /** Reads one stream of segment `segmentId` to its end. */
  async read(
    chunks: AsyncIterable<string>,
    segmentId: string,
    role: TranscriptRole,
    markedFinal: boolean,
  ): Promise<void> {
    let text = '';
    for await (const chunk of chunks) {
      if (!chunk) continue;
      text += chunk;
      if (this.#finished.includes(segmentId)) return;
      this.emit({ segmentId, role, text, final: false });
    }
    if (!markedFinal || this.#finished.includes(segmentId)) return;
    this.#finished.push(segmentId);
    if (this.#finished.length > FINISHED_KEPT) this.#finished.shift();
    this.emit({ segmentId, role, text, final: true });
  }
}
