import type { TranscriptionServerEvent } from '@awp/protocol';
import { TranscriptionError } from './errors.ts';
import type {
  TranscriptionCost,
  TranscriptionEndpointing,
  TranscriptionStarted,
  TranscriptionTranscript,
} from './events.ts';

/** What one text frame of the api amounts to. */
export type ServerFrame =
  | { kind: 'started'; sessionId: string; started: TranscriptionStarted }
  | { kind: 'transcript'; sessionId: string; transcript: TranscriptionTranscript }
  | { kind: 'flushed'; sessionId: string }
  | { kind: 'usage'; sessionId: string; audioMs: number }
  | { kind: 'finish'; sessionId: string; cost: TranscriptionCost; auditId: string }
  | { kind: 'error'; sessionId: string | undefined; error: TranscriptionError }
  /** An event this version does not know: later api versions may add some. */
  | { kind: 'ignored' };

function protocolError(detail: string, sessionId?: string): ServerFrame {
  return {
    kind: 'error',
    sessionId,
    error: new TranscriptionError('protocol_error', `The api sent ${detail}.`, {
      ...(sessionId ? { sessionId } : {}),
    }),
  };
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** Decodes (and camelCases) one server event of `/v1/realtime-transcription`. */
export function decodeServerFrame(text: string): ServerFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return protocolError('a frame that is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return protocolError('a frame that is not an object');
  }
  const event = value as Record<string, unknown>;
  const sessionId = isString(event.session_id) ? event.session_id : undefined;
  if (event.event === 'error') {
    const code = isString(event.code) ? event.code : 'protocol_error';
    return {
      kind: 'error',
      sessionId,
      error: new TranscriptionError(
        code,
        isString(event.detail) ? event.detail : `The api ended the session (${code}).`,
        {
          retryable: event.retryable === true,
          ...(sessionId ? { sessionId } : {}),
          ...(isString(event.request_id) ? { requestId: event.request_id } : {}),
        },
      ),
    };
  }
  if (!sessionId) {
    return isString(event.event) && !KNOWN.has(event.event)
      ? { kind: 'ignored' }
      : protocolError(`a ${JSON.stringify(event.event)} event without session_id`);
  }
  switch (event.event as TranscriptionServerEvent['event']) {
    case 'started':
      return {
        kind: 'started',
        sessionId,
        started: {
          sessionId,
          audioFormat: event.audio_format as TranscriptionStarted['audioFormat'],
          language: isString(event.language) ? event.language : null,
          interimResults: event.interim_results === true,
          endpointing: event.endpointing as TranscriptionEndpointing,
        },
      };
    case 'transcript': {
      if (!isString(event.text) || !isNumber(event.segment_id)) {
        return protocolError('a transcript without text or segment_id', sessionId);
      }
      return {
        kind: 'transcript',
        sessionId,
        transcript: {
          segmentId: event.segment_id,
          text: event.text,
          final: event.final === true,
          startMs: isNumber(event.start_ms) ? event.start_ms : 0,
          endMs: isNumber(event.end_ms) ? event.end_ms : 0,
          ...(isString(event.language) ? { language: event.language } : {}),
        },
      };
    }
    case 'flushed':
      return { kind: 'flushed', sessionId };
    case 'usage': {
      const usage = event.usage as { audio_ms?: unknown } | undefined;
      return { kind: 'usage', sessionId, audioMs: isNumber(usage?.audio_ms) ? usage.audio_ms : 0 };
    }
    case 'finish': {
      const cost = (event.cost ?? {}) as Record<string, unknown>;
      return {
        kind: 'finish',
        sessionId,
        auditId: isString(event.audit_id) ? event.audit_id : '',
        cost: {
          credits: isNumber(cost.credits) ? cost.credits : 0,
          amount: isNumber(cost.amount) ? cost.amount : 0,
          currency: isString(cost.currency) ? cost.currency : 'USD',
          passThrough: cost.pass_through === true,
        },
      };
    }
    default:
      return { kind: 'ignored' };
  }
}

const KNOWN = new Set<string>([
  'started',
  'transcript',
  'flushed',
  'usage',
  'finish',
] satisfies TranscriptionServerEvent['event'][]);
