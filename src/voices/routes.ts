import { z } from 'zod';
import { OUTPUT_FORMATS } from '../../media/formats.ts';
import { requireAuth } from '../auth/context.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { VoiceCatalog } from './catalog.ts';

export const voiceEntrySchema = z
  .object({
    id: z.string().describe('Service-owned voice id; pass it as `voice_id`.'),
    name: z.string(),
    output_formats: z.array(z.enum(OUTPUT_FORMATS)),
    capabilities: z
      .array(z.enum(['tts', 'voice_tags', 'word_alignment', 'char_alignment']))
      .describe(
        'Features of this voice: `voice_tags` (expressive cues), `word_alignment` / `char_alignment` (timings per word / per character with `alignment`).',
      ),
    nsfw: z.boolean(),
  })
  .meta({ title: 'Voice' });

export const voiceListSchema = z.object({ voices: z.array(voiceEntrySchema) });

export function voiceRoutes(catalog: VoiceCatalog): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/voices',
      operationId: 'listVoices',
      summary:
        'Voices enabled for the calling key’s workspace and environment: for synthesis (`tts`) and for its Agents (`agents`).',
      tags: ['voices'],
      // An Agents-only workspace lists the voices it may give its Agents.
      auth: { kind: 'workspace_key', capability: ['tts', 'agents'] },
      responses: { 200: { description: 'The voice list.', schema: voiceListSchema } },
      handle: async ({ auth }) => {
        const caller = requireAuth(auth);
        return {
          status: 200,
          body: {
            voices: await catalog.list(caller.workspaceId, caller.environment),
          },
        };
      },
    }),
  ];
}
