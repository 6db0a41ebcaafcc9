import type { TranscriptionServerEvent } from '@awp/protocol';
import type { Logger } from '../observability/logger.ts';
import type { SttEvent } from '../stt/provider.ts';
import type { EventChannel } from '../tts/stream/channel.ts';
import type { TranscriptionSessionStore } from './session-store.ts';
import type { UtteranceRouter } from './utterances.ts';

/**
 * A session's recognition events as server events: `transcript` with segment ids (finals
 * numbered from 1; an interim carries the id of the final that will replace it) and
 * offsets in the session's audio, `flushed` for the client's flushes, and each final
 * stored in order. `stored()` resolves once every final so far is written.
 */
export class TranscriptDelivery {
  #nextSegment = 1;
  #writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessionId: string,
    private readonly channel: EventChannel,
    private readonly router: UtteranceRouter,
    private readonly store: TranscriptionSessionStore,
    private readonly logger: Logger,
    private readonly interims: boolean,
  ) {}

  deliver(event: SttEvent): void {
    if (event.type === 'flushed') {
      if (this.router.flushes.shift() === 'client') {
        this.channel.send({
          event: 'flushed',
          session_id: this.sessionId,
        } satisfies TranscriptionServerEvent);
      }
      return;
    }
    if (event.type === 'interim' && !this.interims) return;
    // Realtime transcription never asks for preflights (an agent worker's option).
    if (event.type === 'preflight') return;
    const final = event.type === 'final';
    const segmentId = final ? this.#nextSegment++ : this.#nextSegment;
    const startMs = this.router.sessionMs(event.startMs);
    const endMs = startMs + Math.max(0, Math.round(event.endMs - event.startMs));
    this.channel.send({
      event: 'transcript',
      session_id: this.sessionId,
      segment_id: segmentId,
      text: event.text,
      final,
      start_ms: startMs,
      end_ms: endMs,
      ...(event.language ? { language: event.language } : {}),
    } satisfies TranscriptionServerEvent);
    if (!final) return;
    const segment = { segmentId, text: event.text, startMs, endMs, language: event.language };
    this.#writes = this.#writes
      .then(() => this.store.addSegment(this.sessionId, segment))
      .catch((error: unknown) => {
        this.logger.error({ err: error, session_id: this.sessionId }, 'storing a segment failed');
      });
  }

  /** Resolves once every final delivered so far is stored (a failed write is logged). */
  stored(): Promise<void> {
    return this.#writes;
  }
}
