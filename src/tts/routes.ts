import { z } from 'zod';
import { getOutputFormatInfo, OUTPUT_FORMATS } from '../../media/formats.ts';
import { requireAuth } from '../auth/context.ts';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { OneShotResult, OneShotSynthesis } from './oneshot.ts';
import {
  type OneShotBody,
  type OneShotTimedBody,
  oneShotBodySchema,
  oneShotTimedBodySchema,
  timingSchema,
} from './schemas.ts';
import type { SpooledAudio } from './spool.ts';

/** 20,000 code points of JSON-escaped text fit easily. */
const ONESHOT_BODY_LIMIT_BYTES = 512 * 1024;

const ONESHOT_ERRORS = [
  'voice_not_found',
  'insufficient_credit',
  'rate_limited',
  'provider_error',
  'provider_unavailable',
  'provider_auth_missing',
] as const;

const timedResponseSchema = z.object({
  request_id: z.string(),
  audit_id: z.string(),
  format: z.string().describe('Delivered format (authoritative).'),
  audio: z.string().describe('The complete audio in `format`, base64.'),
  duration_ms: z.number().int().describe('Duration of encoded playback.'),
  voice_route: z.enum(['default', 'fallback']),
  alignment: z.enum(['word', 'char']),
  timings: z.array(timingSchema),
});

export function ttsRoutes(oneShot: OneShotSynthesis): AnyRoute[] {
  return [
    defineRoute<OneShotTimedBody>({
      method: 'POST',
      path: '/v1/tts/with-timestamps',
      operationId: 'synthesizeWithTimestamps',
      summary:
        'One-shot synthesis answered in JSON: the complete audio (base64) and the timing of each word (`alignment: "word"`, the default) or character (`"char"`) in it. The voice must list `word_alignment` or `char_alignment` in its capabilities, else 400 `invalid_request`; otherwise as `POST /v1/tts`.',
      tags: ['tts'],
      auth: { kind: 'workspace_key', capability: 'tts' },
      bodyLimitBytes: ONESHOT_BODY_LIMIT_BYTES,
      body: oneShotTimedBodySchema as z.ZodType<OneShotTimedBody>,
      errors: ONESHOT_ERRORS,
      responses: {
        200: {
          description: 'The audio and its timings.',
          schema: timedResponseSchema,
          headers: {
            'X-Request-Id': 'Server-assigned request id.',
            'X-Charge-Credits': 'Credits the request was charged (1 credit = 1,000 millicredits).',
          },
        },
      },
      handle: async ({ request, auth, body }) => {
        const caller = requireAuth(auth);
        const result = await oneShot.run(caller, request.requestId, body, request.signal, {
          alignment: body.alignment,
        });
        return {
          status: 200,
          headers: {
            'x-charge-credits': String(result.chargeMillicredits / MILLICREDITS_PER_CREDIT),
            'cache-control': 'no-store',
          },
          body: {
            request_id: result.requestId,
            audit_id: result.auditId,
            format: result.format,
            audio: (await audioBytes(result, request.signal)).toString('base64'),
            duration_ms: result.durationMs,
            voice_route: result.voiceRoute,
            alignment: body.alignment,
            timings: result.timings ?? [],
          } satisfies z.infer<typeof timedResponseSchema>,
        };
      },
    }),
    defineRoute<OneShotBody>({
      method: 'POST',
      path: '/v1/tts',
      operationId: 'synthesize',
      summary:
        'One-shot synthesis: complete text in, complete audio bytes out. What the schema cannot state: `output_format` must be one of the voice’s `formats` (`GET /v1/voices`), and a tag-only request needs a voice with `voice_tags`; otherwise 400 `invalid_request`.',
      tags: ['tts'],
      auth: { kind: 'workspace_key', capability: 'tts' },
      bodyLimitBytes: ONESHOT_BODY_LIMIT_BYTES,
      body: oneShotBodySchema as z.ZodType<OneShotBody>,
      errors: ONESHOT_ERRORS,
      responses: {
        200: {
          description:
            'Raw audio bytes in the requested format; `Content-Type` and `X-Audio-Format` select the decoder.',
          contentType: [...new Set(OUTPUT_FORMATS.map((f) => getOutputFormatInfo(f).contentType))],
          headers: {
            'X-Request-Id': 'Server-assigned request id.',
            'X-Audit-Id': 'Audit ledger id.',
            'X-Audio-Format': 'Delivered format (authoritative).',
            'X-Audio-Duration-Ms': 'Duration of encoded playback.',
            'X-Voice-Route':
              'Which route of the voice served: `default` (the one the catalog entry describes) or `fallback` (another, after the default failed before any audio; it delivers the requested format, and drops voice tags when it has none). Never names the provider or model.',
            'X-Charge-Credits': 'Credits the request was charged (1 credit = 1,000 millicredits).',
            'Server-Timing': 'synth: synthesis and encoding time.',
          },
        },
      },
      handle: async ({ request, auth, body }) => {
        const caller = requireAuth(auth);
        const result = await oneShot.run(caller, request.requestId, body, request.signal);
        const { audio } = result;
        return {
          status: 200,
          headers: {
            'content-type': result.contentType,
            'x-audio-format': result.format,
            'x-audit-id': result.auditId,
            'x-audio-duration-ms': String(result.durationMs),
            'x-voice-route': result.voiceRoute,
            'x-charge-credits': String(result.chargeMillicredits / MILLICREDITS_PER_CREDIT),
            'server-timing': `synth;dur=${result.synthesisMs.toFixed(1)}`,
            'cache-control': 'no-store',
          },
          // A spooled answer goes out from its file, chunked; the file goes when it ends.
          ...(Buffer.isBuffer(audio) ? { body: audio } : { stream: audio.stream(request.signal) }),
        };
      },
    }),
  ];
}

/** The whole audio in memory (a JSON answer carries it base64), spooled or not. */
async function audioBytes(result: OneShotResult, signal: AbortSignal): Promise<Buffer> {
  const audio: Buffer | SpooledAudio = result.audio;
  if (Buffer.isBuffer(audio)) return audio;
  const parts: Buffer[] = [];
  for await (const part of audio.stream(signal)) parts.push(part);
  return Buffer.concat(parts);
}
