import type { z } from 'zod';
import { getOutputFormatInfo, OUTPUT_FORMATS } from '../../media/formats.ts';
import { requireAuth } from '../auth/context.ts';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { OneShotSynthesis } from './oneshot.ts';
import { type OneShotBody, oneShotBodySchema } from './schemas.ts';

/** 20,000 code points of JSON-escaped text fit easily. */
const ONESHOT_BODY_LIMIT_BYTES = 512 * 1024;

export function ttsRoutes(oneShot: OneShotSynthesis): AnyRoute[] {
  return [
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
      errors: [
        'voice_not_found',
        'insufficient_credit',
        'rate_limited',
        'provider_error',
        'provider_unavailable',
        'provider_auth_missing',
      ],
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
