import { TRANSCRIPTION_AUDIO_FORMATS, type TranscriptionAudioFormat } from '@awp/protocol';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { validate } from '../http/validate.ts';

/** Largest client frame, text or binary (the spec's 64 KiB); bigger frames close with 1009. */
/** Raw 16-bit little-endian mono PCM formats a session accepts, with their rates. */
export {
  TRANSCRIPTION_AUDIO_FORMATS as AUDIO_FORMATS,
  TRANSCRIPTION_MAX_FRAME_BYTES as MAX_FRAME_BYTES,
} from '@awp/protocol';

type AudioFormat = TranscriptionAudioFormat;

const startSchema = z.strictObject({
  event: z.literal('start'),
  audio_format: z.enum(Object.keys(TRANSCRIPTION_AUDIO_FORMATS) as [AudioFormat, ...AudioFormat[]]),
  language: z.string().min(2).max(35).optional(),
  interim_results: z.boolean().optional(),
  endpointing: z.enum(['vad', 'manual']).optional(),
  partner_session_id: z.string().min(1).max(200).optional(),
});

export type StartEvent = z.infer<typeof startSchema>;

const CLIENT_EVENT_SCHEMAS = {
  start: startSchema,
  audio: z.strictObject({
    event: z.literal('audio'),
    audio: z.base64('audio must be base64 (standard alphabet, padded)').min(1),
  }),
  flush: z.strictObject({ event: z.literal('flush') }),
  stop: z.strictObject({ event: z.literal('stop') }),
} as const;

/** A client event: JSON text frames, and binary frames as `audio` with their bytes. */
export type ClientEvent =
  | StartEvent
  | { event: 'audio'; data: Buffer }
  | { event: 'flush' }
  | { event: 'stop' };

/**
 * Validates one parsed JSON frame as a client event (an `audio` event's base64 decoded);
 * anything else is `invalid_request` naming the problem.
 */
export function parseClientEvent(value: unknown): ClientEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('invalid_request', 'Each text frame must be a JSON object with an "event".');
  }
  const event = (value as { event?: unknown }).event;
  if (typeof event !== 'string' || !Object.hasOwn(CLIENT_EVENT_SCHEMAS, event)) {
    throw new ApiError(
      'invalid_request',
      'Unknown event; client events are start, audio, flush and stop (audio also as binary frames).',
    );
  }
  if ('session_id' in value) {
    throw new ApiError('invalid_request', 'session_id is assigned by the server; do not send it.');
  }
  const schema = CLIENT_EVENT_SCHEMAS[event as keyof typeof CLIENT_EVENT_SCHEMAS] as z.ZodType;
  const parsed = validate(schema, value, event) as
    | StartEvent
    | { event: 'audio'; audio: string }
    | { event: 'flush' }
    | { event: 'stop' };
  if (parsed.event === 'audio')
    return { event: 'audio', data: Buffer.from(parsed.audio, 'base64') };
  return parsed;
}
