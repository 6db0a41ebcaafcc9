import { z } from 'zod';
import { MILLICREDITS_PER_CREDIT } from '../../billing/pricing.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import type { VoiceGeneration } from '../../playground/generation-store.ts';
import {
  PLAYGROUND_FORMATS,
  type Playground,
  type PlaygroundMember,
} from '../../playground/playground.ts';
import { searchVoiceTags } from '../../playground/tag-vocabulary.ts';
import { voiceTagsSchema } from '../../tts/schemas.ts';
import { codePointLength } from '../../tts/tags.ts';
import type { VoiceCatalog } from '../../voices/catalog.ts';
import { VOICE_MANAGER_ROLES } from '../../workspaces/roles.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { EVERY_ROLE, operatorRoute } from '../route.ts';

/** Text of one Playground generation or Auto Tag request, in Unicode code points. */
export const MAX_PLAYGROUND_TEXT_CHARS = 5_000;
/** The Speed override's range: what every route's engine honours without clamping. */
export const PLAYGROUND_SPEED = { min: 0.5, max: 2 } as const;

const playgroundText = z
  .string()
  .refine((text) => codePointLength(text) <= MAX_PLAYGROUND_TEXT_CHARS, {
    message: `text is at most ${MAX_PLAYGROUND_TEXT_CHARS} characters (Unicode code points)`,
  });
const routeId = z.string().min(1).max(100);

const generateSchema = z.strictObject({
  text: playgroundText,
  output_format: z.enum(PLAYGROUND_FORMATS, {
    error: () => `output_format must be one of ${PLAYGROUND_FORMATS.join(', ')}`,
  }),
  speed: z
    .number()
    .min(PLAYGROUND_SPEED.min, `speed is at least ${PLAYGROUND_SPEED.min}`)
    .max(PLAYGROUND_SPEED.max, `speed is at most ${PLAYGROUND_SPEED.max}`)
    .optional(),
  route_id: routeId.optional(),
  voice_tags: voiceTagsSchema.optional(),
});

const listQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

const tagQuerySchema = z.strictObject({ search: z.string().max(48).default('') });

const autoTagSchema = z
  .strictObject({
    text: playgroundText,
    voice_id: z.string().min(1).max(200).optional(),
    route_id: routeId.optional(),
  })
  .refine((body) => body.route_id === undefined || body.voice_id !== undefined, {
    message: 'route_id needs voice_id',
    path: ['route_id'],
  });

/** A generation as the dashboard reads it; `audio_url` plays it. */
export function generationView(generation: VoiceGeneration) {
  return {
    id: generation.id,
    voice_id: generation.voiceId,
    route_id: generation.routeId,
    provider: generation.provider,
    model: generation.model,
    text: generation.text,
    output_format: generation.outputFormat,
    speed: generation.speed,
    voice_tags: generation.voiceTags,
    tags_skipped: generation.tagsSkipped,
    content_type: generation.contentType,
    duration_ms: generation.durationMs,
    size_bytes: generation.sizeBytes,
    charge_credits: generation.costMillicredits / MILLICREDITS_PER_CREDIT,
    request_id: generation.requestId,
    created_by: generation.createdBy,
    created_at: generation.createdAt,
    audio_url: `/operator/api/voices/${encodeURIComponent(generation.voiceId)}/generations/${encodeURIComponent(generation.id)}/audio`,
  };
}

function memberOf(member: OperatorPrincipal, request: HttpRequest): PlaygroundMember {
  return {
    userId: member.userId,
    email: member.email,
    workspaceId: member.workspaceId,
    environment: request.environment,
  };
}

/**
 * The Playground through the operator API (spec rule 10): generate (charged like
 * `POST /v1/tts`), the voice's generation History and its audio, Auto Tag and the tag
 * vocabulary. Every role may use it (spec rule 1).
 */
export function generationRoutes(
  guard: OperatorGuard,
  playground: Playground,
  catalog: VoiceCatalog,
): AnyRoute[] {
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/catalog',
      operationId: 'operatorVoiceCatalog',
      summary:
        'The voices clients of this environment can use (GET /v1/voices), built-in ones too.',
      roles: EVERY_ROLE,
      handle: async ({ member, request }) => ({
        status: 200,
        body: { voices: await catalog.list(member.workspaceId, request.environment) },
      }),
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices/:voiceId/generations',
      operationId: 'operatorGenerate',
      summary: 'Synthesizes text with the voice and keeps the audio in its History.',
      roles: EVERY_ROLE,
      body: generateSchema,
      errors: [
        'invalid_request',
        'voice_not_found',
        'not_found',
        'conflict',
        'insufficient_credit',
        'rate_limited',
        'organization_suspended',
        'organization_account_missing',
        'capability_disabled',
        'provider_error',
        'provider_unavailable',
        'provider_auth_missing',
      ],
      handle: async ({ member, request, body }) => {
        const { generation, warnings } = await playground.generate(memberOf(member, request), {
          voiceId: request.params.voiceId ?? '',
          text: body.text,
          format: body.output_format,
          speed: body.speed,
          routeId: body.route_id,
          voiceTags: body.voice_tags,
          requestId: request.requestId,
          signal: request.signal,
        });
        return { status: 201, body: { generation: generationView(generation), warnings } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/voices/:voiceId/generations',
      operationId: 'operatorListGenerations',
      summary: 'The voice’s Playground generations, newest first.',
      roles: EVERY_ROLE,
      query: listQuerySchema,
      errors: ['voice_not_found', 'invalid_request'],
      handle: async ({ member, request, query }) => {
        const generations = await playground.list(
          memberOf(member, request),
          request.params.voiceId ?? '',
          query.limit,
        );
        return { status: 200, body: { generations: generations.map(generationView) } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/voices/:voiceId/generations/:generationId/audio',
      operationId: 'operatorReadGeneration',
      summary: 'The audio of one generation, for members of the voice’s workspace only.',
      roles: EVERY_ROLE,
      errors: ['voice_not_found', 'not_found'],
      handle: async ({ member, request }) => {
        const { generation, audio } = await playground.audio(
          memberOf(member, request),
          request.params.voiceId ?? '',
          request.params.generationId ?? '',
        );
        return {
          status: 200,
          headers: {
            'content-type': generation.contentType,
            // Speech in a workspace's voice: never kept by shared caches, never sniffed.
            'cache-control': 'private, no-store',
            'x-content-type-options': 'nosniff',
          },
          body: audio,
        };
      },
    }),
    operatorRoute(guard, {
      method: 'DELETE',
      path: '/voices/:voiceId/generations/:generationId',
      operationId: 'operatorDeleteGeneration',
      summary:
        'Deletes a generation and its audio from the voice’s History: its maker, or an Owner or Admin.',
      roles: EVERY_ROLE,
      errors: ['voice_not_found', 'not_found', 'forbidden'],
      handle: async ({ member, request }) => {
        const generation = await playground.remove(
          memberOf(member, request),
          request.params.voiceId ?? '',
          request.params.generationId ?? '',
          VOICE_MANAGER_ROLES.includes(member.role),
        );
        return { status: 200, body: { generation: generationView(generation) } };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/auto-tag',
      operationId: 'operatorAutoTag',
      summary: 'Auto Tag: prefixes sentences with emotion and delivery tags (offline).',
      roles: EVERY_ROLE,
      body: autoTagSchema,
      errors: ['invalid_request', 'voice_not_found', 'not_found', 'conflict'],
      handle: async ({ member, request, body }) => {
        const result = await playground.autoTag(memberOf(member, request), {
          text: body.text,
          voiceId: body.voice_id,
          routeId: body.route_id,
        });
        return { status: 200, body: result };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/voice-tags',
      operationId: 'operatorVoiceTags',
      summary: 'The tags the Playground suggests after `[`, optionally those matching search.',
      roles: EVERY_ROLE,
      query: tagQuerySchema,
      errors: ['invalid_request'],
      handle: async ({ query }) => ({
        status: 200,
        body: { tags: searchVoiceTags(query.search).map((entry) => ({ ...entry })) },
      }),
    }),
  ];
}
