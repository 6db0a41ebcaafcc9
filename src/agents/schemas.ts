import { z } from 'zod';
import { LLM_PROVIDER_NAMES, THINKING_LEVELS } from '../llm/provider.ts';
import { LOCAL_MODEL_NAME } from '../llm/registry.ts';
import type { AgentRecord } from './agent-store.ts';
import { SLUG_PATTERN } from './agents.ts';
import {
  characterCardOutputSchema,
  characterCardSchema,
  LEGACY_FIELDS,
  legacyFieldsOf,
} from './character-card.ts';
import { languageTagSchema } from './language-tag.ts';

const MAX_LEGACY_CHARS = 100_000;

/**
 * Request schemas of the Agent routes. They describe the software, not one deployment:
 * `llm_provider` lists every supported provider and `llm_model` is an open string (model
 * names are configuration), so every deployment serves the same OpenAPI document. What a
 * deployment offers is `GET /v1/models`; a write naming anything else is refused with
 * `invalid_request` (`Agents`).
 */
export function agentSchemas() {
  const legacy = Object.fromEntries(
    LEGACY_FIELDS.map((field) => [
      field,
      z
        .string()
        .max(MAX_LEGACY_CHARS)
        .optional()
        .describe('Legacy character field; cannot be combined with `character_card`.'),
    ]),
  ) as Record<(typeof LEGACY_FIELDS)[number], z.ZodOptional<z.ZodString>>;

  const writable = {
    slug: z
      .string()
      .regex(SLUG_PATTERN, 'lower-case letters, digits and inner hyphens, 1 to 64 characters')
      .describe('Unique per workspace and environment.'),
    voice_id: z.string().max(64).nullable().describe('Public voice selection; null clears it.'),
    avatar_id: z.string().max(64).describe('An id from `GET /v1/avatars`.'),
    character_card: characterCardSchema,
    llm_provider: z
      .enum(LLM_PROVIDER_NAMES)
      .describe(
        'Language-model provider. Every provider the software supports is listed; `GET /v1/models` lists the ones this deployment offers, and any other is refused with `invalid_request`.',
      ),
    llm_model: z
      .string()
      .min(1)
      .max(200)
      .describe(
        'Language-model name, of the chosen provider. Model names are configuration: `GET /v1/models` lists the ones this deployment offers, and any other is refused with `invalid_request`.',
      )
      .meta({ examples: ['gpt-4.1-mini', 'claude-sonnet-4-6', LOCAL_MODEL_NAME] }),
    thinking_level: z
      .enum(THINKING_LEVELS)
      .describe(
        'Reasoning level. Any level is kept as given; the language model runs the nearest level it supports (`GET /v1/models` lists them): a model without reasoning runs `off`.',
      ),
    web_search_enabled: z.boolean(),
    memory_enabled: z.boolean(),
    calendar_enabled: z.boolean(),
    documents_enabled: z.boolean(),
    language: languageTagSchema()
      .nullable()
      .describe(
        "BCP 47 tag of the language the Agent's users speak (`en`, `es-MX`): speech recognition is told it. Null: the voice's language, else detected per utterance.",
      ),
    recording_enabled: z
      .boolean()
      .describe(
        'Record the live sessions of this Agent: one stereo Ogg Opus file per session (the user left, the Agent right), served by `GET /v1/agent-sessions/{id}/recording`. Off by default; tell your users they are recorded.',
      ),
  };
  // For the document: legacy character fields and `character_card` never in one write.
  const exclusive = {
    not: { anyOf: LEGACY_FIELDS.map((field) => ({ required: ['character_card', field] })) },
  };
  const patch = z
    .strictObject({ ...writable, ...legacy })
    .partial()
    .meta({ title: 'AgentPatch', ...exclusive });
  const create = patch.extend({ slug: writable.slug }).meta({ title: 'AgentCreate', ...exclusive });

  return { create, patch };
}

const revisionSchema = z.object({ id: z.string(), version: z.number().int() });

export const agentSchema = z
  .object({
    id: z.string().describe('Agent id (UUID).'),
    slug: z.string(),
    avatar_id: z.string(),
    character_card: characterCardOutputSchema,
    voice_id: z.string().nullable().describe('Null until a public voice is selected.'),
    llm_provider: z.string().nullable(),
    llm_model: z.string().nullable(),
    thinking_level: z.string(),
    web_search_enabled: z.boolean(),
    memory_enabled: z.boolean(),
    calendar_enabled: z.boolean(),
    documents_enabled: z.boolean(),
    language: z
      .string()
      .nullable()
      .describe("The language the Agent's users speak (BCP 47); null when unset."),
    recording_enabled: z.boolean().describe("Whether the Agent's live sessions are recorded."),
    draft_revision: revisionSchema,
    active_publication: z
      .object({
        id: z.string(),
        version: z.number().int(),
        revision: revisionSchema,
        memory_enabled: z.boolean(),
        calendar_enabled: z.boolean(),
        documents_enabled: z.boolean(),
        created_at: z.string(),
      })
      .nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    display_name: z.string().describe('Legacy: character_card.data.name.'),
    description: z.string().describe('Legacy: character_card.data.creator_notes.'),
    persona: z.string().describe('Legacy: character_card.data.description.'),
    instructions: z.string().describe('Legacy: character_card.data.system_prompt.'),
  })
  .meta({ title: 'Agent' });

export const agentListSchema = z.object({
  agents: z.array(agentSchema),
  next_cursor: z
    .string()
    .nullable()
    .describe(
      'Pass as `cursor` for the next page; null on the last page (always when not paging).',
    ),
});

export const agentListQuerySchema = z.strictObject({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Agents per page. Paging is opt-in: without `limit` and `cursor` every Agent is returned; with `cursor` alone a page holds 50.',
    ),
  cursor: z.uuid().optional().describe('`next_cursor` of the previous page.'),
  slug: z.string().max(64).optional().describe('Only the Agent with this slug.'),
});

/** The Agent resource of the spec (with the legacy fields derived from the card). */
export function agentBody(agent: AgentRecord): z.infer<typeof agentSchema> {
  const { draft, activePublication: pub } = agent;
  return {
    id: agent.id,
    slug: agent.slug,
    avatar_id: draft.avatarId,
    character_card: draft.characterCard,
    voice_id: draft.voiceId,
    llm_provider: draft.llmProvider,
    llm_model: draft.llmModel,
    thinking_level: draft.thinkingLevel,
    web_search_enabled: draft.webSearchEnabled,
    memory_enabled: draft.memoryEnabled,
    calendar_enabled: draft.calendarEnabled,
    documents_enabled: draft.documentsEnabled,
    language: draft.language,
    recording_enabled: draft.recordingEnabled,
    draft_revision: agent.draftRevision,
    active_publication: pub
      ? {
          id: pub.id,
          version: pub.version,
          revision: pub.revision,
          memory_enabled: pub.memoryEnabled,
          calendar_enabled: pub.calendarEnabled,
          documents_enabled: pub.documentsEnabled,
          created_at: pub.createdAt,
        }
      : null,
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
    ...legacyFieldsOf(draft.characterCard),
  };
}
