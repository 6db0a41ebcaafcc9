import { randomUUID } from 'node:crypto';
import {
  ATTR_SEGMENT_ID,
  ATTR_TRANSCRIBED_TRACK_ID,
  ATTR_TRANSCRIPTION_FINAL,
  TOPIC_TRANSCRIPTION,
} from '@awp/protocol';
import { type Room, TrackKind } from '@livekit/rtc-node';
import type { Logger } from '../../src/worker-boundary/index.ts';

/**
 * One caption segment on `lk.transcription`, in LiveKit Agents' format: a delta stream
 * (`lk.transcription_final` false) that receives each word as it is due, then a stream of
 * the same `lk.segment_id` marked final with the segment's whole text, which replaces it.
 * Writes go out in order, each as soon as the one before it is sent.
 */
export class CaptionStream {
  readonly id = `SG_${randomUUID()}`;
  /** The text sent on the delta stream so far. */
  text = '';
  #writes: Promise<void> = Promise.resolve();
  #writer: Promise<{ write(text: string): Promise<void>; close(): Promise<void> }> | undefined;

  constructor(
    private readonly room: Room,
    private readonly log: Logger,
  ) {}

  /** Opens the delta stream ahead of its first word, so that word is not held by the opening. */
  open(): void {
    this.#queue(async () => {
      this.#writer ??= this.#open(false);
      await this.#writer;
    });
  }

  append(chunk: string): void {
    this.text += chunk;
    this.#queue(async () => {
      this.#writer ??= this.#open(false);
      await (await this.#writer).write(chunk);
    });
  }

  /** Closes the delta stream and sends `text` as the segment's final text. */
  end(text: string): void {
    this.#queue(async () => {
      if (this.#writer) await (await this.#writer).close();
      // Nothing shown and nothing heard (cut before the first word): no final text either.
      if (text === '' && this.text === '') return;
      const final = await this.#open(true);
      await final.write(text);
      await final.close();
    });
  }

  #queue(step: () => Promise<void>): void {
    this.#writes = this.#writes.then(step).catch((error) => {
      // The user may have left; the transcript turn carries the text either way.
      this.log.debug({ err: error }, 'caption not published');
    });
  }

  #open(final: boolean) {
    const local = this.room.localParticipant;
    if (!local) throw new Error('not connected to the room');
    const track = [...local.trackPublications.values()].find(
      (p) => p.kind === TrackKind.KIND_AUDIO,
    );
    return local.streamText({
      topic: TOPIC_TRANSCRIPTION,
      attributes: {
        [ATTR_SEGMENT_ID]: this.id,
        [ATTR_TRANSCRIPTION_FINAL]: String(final),
        ...(track?.sid ? { [ATTR_TRANSCRIBED_TRACK_ID]: track.sid } : {}),
      },
    });
  }
}
