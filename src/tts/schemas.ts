import { z } from 'zod';
import { OUTPUT_FORMATS } from '../../media/formats.ts';
import { codePointLength } from './tags.ts';

export const MAX_ONESHOT_TEXT_CHARS = 20_000;
export const MAX_STREAM_TEXT_EVENT_CHARS = 5_000;
export const MAX_STREAM_TOTAL_TEXT_CHARS = 20_000;
export const MAX_VOICE_TAGS = 2;
export const MAX_VOICE_TAG_CHARS = 48;

/** Fields a client must never send: the service owns request ids and voice routing. */
const SERVER_OWNED: Record<string, string> = {
  request_id: 'request_id is assigned by the server; do not send it',
  model_id: 'clients select voices by voice_id only; model_id is not accepted',
  model: 'clients select voices by voice_id only; model is not accepted',
  provider: 'clients select voices by voice_id only; provider is not accepted',
  provider_voice_id: 'clients select voices by voice_id only; provider_voice_id is not accepted',
  routing: 'clients select voices by voice_id only; routing is not accepted',
};

/** Adds a precise message for server-owned fields before the strict object refuses them. */
export function refuseServerOwned(
  value: unknown,
  ctx: { addIssue(issue: { code: 'custom'; path: (string | number)[]; message: string }): void },
  path: (string | number)[] = [],
): void {
  if (typeof value !== 'object' || value === null) return;
  for (const key of Object.keys(value)) {
    const message = SERVER_OWNED[key];
    if (message) ctx.addIssue({ code: 'custom', path: [...path, key], message });
  }
}

export const voiceTagsSchema = z
  .array(
    z
      .string()
      .min(1, 'a voice tag cannot be empty')
      .refine((tag) => codePointLength(tag) <= MAX_VOICE_TAG_CHARS, {
        message: `each voice tag is at most ${MAX_VOICE_TAG_CHARS} characters`,
      })
      .refine((tag) => !/[[\]]/.test(tag), {
        message: 'send bare tag values, without square brackets',
      })
      .refine((tag) => tag.trim() !== '', { message: 'a voice tag cannot be blank' }),
  )
  .min(1, 'voice_tags needs at least one tag when present')
  .max(MAX_VOICE_TAGS, `at most ${MAX_VOICE_TAGS} voice tags`)
  .describe('One or two request-wide cues, bare values without square brackets.');

export const synthesisParamsSchema = z
  .strictObject({
    speed: z
      .number()
      .positive('speed must be a positive number')
      .max(100, 'speed must be a reasonable multiplier')
      .optional()
      .describe('Speaking-speed multiplier; 1 is normal.'),
    voice_tags: voiceTagsSchema.optional(),
  })
  .describe('Optional synthesis parameters.');

/** Opt-in timings of the audio: per word or per character. */
export const alignmentSchema = z
  .enum(['word', 'char'], { error: () => 'alignment is "word" or "char"' })
  .describe(
    'Ask for the timing of each word (`word`) or character (`char`) of the output audio; the voice must list `word_alignment` or `char_alignment` in its capabilities, else 400 `invalid_request`.',
  );

const partnerSessionId = z
  .string()
  .min(1)
  .max(200)
  .describe('External correlation id; never owns billing or idempotency.');
const contextId = z.string().min(1).max(200).describe('Caller’s turn or playback-context id.');

/** One of the spec's output formats; bare `pcm` and unknown names are refused. */
export const outputFormatSchema = z
  .enum(OUTPUT_FORMATS, {
    error: () => `unknown output_format; expected one of ${OUTPUT_FORMATS.join(', ')}`,
  })
  .describe('A format listed for this voice.');

const oneShotFields = {
  text: z
    .string()
    .refine((text) => codePointLength(text) <= MAX_ONESHOT_TEXT_CHARS, {
      message: `text is at most ${MAX_ONESHOT_TEXT_CHARS} characters (Unicode code points)`,
    })
    .describe('Complete UTF-8 text, at most 20,000 characters.'),
  voice_id: z.string().min(1).max(200).describe('Id from GET /v1/voices.'),
  output_format: outputFormatSchema,
  partner_session_id: partnerSessionId.optional(),
  context_id: contextId.optional(),
  params: synthesisParamsSchema.optional(),
};

// The tag-only rule, for the document: `text` may be empty only with voice tags (and then
// only on a voice that advertises `voice_tags`, which the document cannot say).
const TAG_ONLY_RULE = {
  anyOf: [
    { properties: { text: { minLength: 1 } } },
    { required: ['params'], properties: { params: { required: ['voice_tags'] } } },
  ],
};

/** Body of `POST /v1/tts`. */
export const oneShotBodySchema = z.preprocess((value, ctx) => {
  refuseServerOwned(value, ctx);
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, 'alignment')) {
    // Raw audio has no room for timings: they come with the JSON answer.
    ctx.addIssue({
      code: 'custom',
      path: ['alignment'],
      message: 'timings come with the audio in JSON: POST /v1/tts/with-timestamps',
    });
  }
  return value;
}, z.strictObject(oneShotFields).meta(TAG_ONLY_RULE));

/** Body of `POST /v1/tts/with-timestamps`: the one-shot body and the alignment wanted. */
export const oneShotTimedBodySchema = z.preprocess(
  (value, ctx) => {
    refuseServerOwned(value, ctx);
    return value;
  },
  z
    .strictObject({
      ...oneShotFields,
      alignment: alignmentSchema.default('word'),
    })
    .meta(TAG_ONLY_RULE),
);

export type OneShotBody = {
  text: string;
  voice_id: string;
  output_format: string;
  partner_session_id?: string | undefined;
  context_id?: string | undefined;
  params?: { speed?: number | undefined; voice_tags?: string[] | undefined } | undefined;
};

export type OneShotTimedBody = OneShotBody & { alignment: 'word' | 'char' };

/** One timing in a response: the word or character and when it is spoken. */
export const timingSchema = z
  .object({
    text: z.string().describe('The word or character, as the request text has it.'),
    start_ms: z
      .number()
      .int()
      .min(0)
      .describe('Start, in milliseconds of the output audio from its first sample.'),
    end_ms: z.number().int().min(0).describe('End, in milliseconds of the output audio.'),
  })
  .describe(
    'When a word or character is spoken. Timings follow each other in order, each ending at or before the next one starts.',
  );
