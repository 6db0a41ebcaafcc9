import type { TranscriptionServerEvent } from '@awp/protocol';
// Decoding of the realtime transcription socket's events.
import { type AwpError, AwpInvalidResponseError, apiError, isApiErrorBody } from '../errors.ts';
import type {
  Transcript,
  TranscriptionResult,
  TranscriptionStarted,
} from '../types/transcription.ts';

/** What one server frame amounts to. */
export type DecodedTranscription =
  | { started: TranscriptionStarted }
  | { transcript: Transcript }
  | { flushed: true }
  | { done: TranscriptionResult }
  | { error: AwpError }
  | undefined;

/** The state of one session's server events: its id and the `usage` before `finish`. */
export class TranscriptionDecoder {
  sessionId: string | undefined;
  #audioMs = 0;

  /** A failure the service caused by sending something outside the protocol. */
  invalid(detail: string): AwpError {
    return new AwpInvalidResponseError({
      code: 'invalid_response',
      detail,
      requestId: this.sessionId,
      retryable: false,
    });
  }

  /** Decodes one text frame. */
  frame(text: string): DecodedTranscription {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { error: this.invalid('the service sent a frame that is not JSON') };
    }
    if (typeof event !== 'object' || event === null) {
      return { error: this.invalid('the service sent a frame that is not an object') };
    }
    if (typeof event.session_id === 'string') this.sessionId ??= event.session_id;
    switch (event.event as TranscriptionServerEvent['event']) {
      case 'started':
        return {
          started: {
            sessionId: String(event.session_id),
            audioFormat: event.audio_format as TranscriptionStarted['audioFormat'],
            language: typeof event.language === 'string' ? event.language : null,
            interimResults: event.interim_results === true,
            endpointing: event.endpointing as TranscriptionStarted['endpointing'],
          },
        };
      case 'transcript': {
        if (typeof event.text !== 'string' || typeof event.segment_id !== 'number') {
          return { error: this.invalid('a transcript event without text or segment_id') };
        }
        return {
          transcript: {
            sessionId: String(event.session_id),
            segmentId: event.segment_id,
            text: event.text,
            final: event.final === true,
            startMs: Number(event.start_ms),
            endMs: Number(event.end_ms),
            ...(typeof event.language === 'string' ? { language: event.language } : {}),
          },
        };
      }
      case 'flushed':
        return { flushed: true };
      case 'usage':
        this.#audioMs = Number((event.usage as { audio_ms?: unknown } | undefined)?.audio_ms ?? 0);
        return undefined;
      case 'finish':
        return {
          done: {
            sessionId: String(event.session_id),
            auditId: String(event.audit_id),
            audioMs: this.#audioMs,
            cost: event.cost as TranscriptionResult['cost'],
          },
        };
      case 'error':
        return {
          error: isApiErrorBody(event)
            ? apiError(event)
            : this.invalid('an error event without code or retryable'),
        };
      default:
        return { error: this.invalid(`unknown event ${JSON.stringify(event.event)}`) };
    }
  }
}
