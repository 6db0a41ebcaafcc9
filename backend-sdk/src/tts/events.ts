import type { TtsServerEvent } from '@awp/protocol';
// Decoding of the service's stream events: seq order, usage and finish, error events.
import {
  type AwpError,
  AwpInvalidResponseError,
  AwpStreamSequenceError,
  apiError,
  isApiErrorBody,
} from '../errors.ts';
import type { AudioChunk, StreamResult, Timing } from '../types/tts.ts';
import type { OutputFormat } from '../types/voices.ts';

/** What one server frame amounts to: a chunk, the end, a failure, or nothing to deliver. */
export type Decoded =
  | { chunk: AudioChunk }
  | { done: StreamResult }
  | { error: AwpError }
  | undefined;

/**
 * The state of one stream's server events: the request id, the next `seq` due and the
 * `usage` that precedes `finish`.
 */
export class StreamDecoder {
  requestId: string | undefined;
  #nextSeq = 1;
  #usage: { chars: number; audio_ms: number; voiceId: string } | undefined;

  /** A failure the service caused by sending something outside the protocol. */
  invalid(detail: string): AwpError {
    return new AwpInvalidResponseError({
      code: 'invalid_response',
      detail,
      requestId: this.requestId,
      retryable: false,
    });
  }

  /** Decodes one text frame. */
  frame(text: string): Decoded {
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      return { error: this.invalid('the service sent a frame that is not JSON') };
    }
    if (typeof event !== 'object' || event === null) {
      return { error: this.invalid('the service sent a frame that is not an object') };
    }
    return this.#event(event as Record<string, unknown>);
  }

  #event(event: Record<string, unknown>): Decoded {
    if (typeof event.request_id === 'string') this.requestId ??= event.request_id;
    switch (event.event as TtsServerEvent['event']) {
      case 'audio':
        return this.#audio(event);
      case 'usage': {
        const usage = event.usage as { chars?: unknown; audio_ms?: unknown } | undefined;
        this.#usage = {
          chars: Number(usage?.chars ?? 0),
          audio_ms: Number(usage?.audio_ms ?? 0),
          voiceId: String(event.voice_id ?? ''),
        };
        return undefined;
      }
      case 'finish': {
        const usage = this.#usage ?? { chars: 0, audio_ms: 0, voiceId: '' };
        return {
          done: {
            requestId: String(event.request_id),
            auditId: String(event.audit_id),
            reason: String(event.reason),
            usage: { chars: usage.chars, audio_ms: usage.audio_ms },
            voiceId: usage.voiceId,
            cost: event.cost as StreamResult['cost'],
            audioPersisted: event.audio_persisted === true,
            chunks: this.#nextSeq - 1,
            voiceRoute:
              event.voice_route === 'default' || event.voice_route === 'fallback'
                ? event.voice_route
                : undefined,
          },
        };
      }
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

  #audio(event: Record<string, unknown>): Decoded {
    const seq = event.seq;
    if (typeof seq !== 'number' || typeof event.audio !== 'string') {
      return { error: this.invalid('an audio event without seq or audio') };
    }
    if (seq !== this.#nextSeq) {
      return {
        error: new AwpStreamSequenceError({
          code: 'stream_sequence_error',
          detail: `audio seq ${seq} arrived where ${this.#nextSeq} was due`,
          requestId: this.requestId,
          retryable: false,
          expectedSeq: this.#nextSeq,
          receivedSeq: seq,
        }),
      };
    }
    this.#nextSeq += 1;
    return {
      chunk: {
        seq,
        audio: Buffer.from(event.audio, 'base64'),
        format: event.format as OutputFormat,
        requestId: String(event.request_id),
        ...(typeof event.context_id === 'string' ? { contextId: event.context_id } : {}),
        ...(Array.isArray(event.timings) ? { timings: event.timings as Timing[] } : {}),
      },
    };
  }
}
