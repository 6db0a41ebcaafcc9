import type { TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import type { LlmProviderName, ThinkingLevel } from '../llm/provider.ts';
import type { LlmCatalog } from '../llm/registry.ts';
import type { PublicVoices } from '../voices/public-voices.ts';
import type { AgentDraft, AgentRecord, AgentStore, PublishedAgent } from './agent-store.ts';
import { DEFAULT_AVATAR_ID, findAvatar } from './avatars/catalog.ts';
import {
  applyLegacyFields,
  type CharacterCard,
  emptyCard,
  LEGACY_FIELDS,
  type LegacyField,
} from './character-card.ts';
import { LANGUAGE_TAG_PATTERN } from './language-tag.ts';

/** Agents per page when a client pages with `cursor` alone. */
const DEFAULT_PAGE = 50;
/** Rows read per query when every Agent is listed. */
const UNPAGED_BATCH = 500;

/** A create or patch body, in the Agent resource's own field names (already schema-checked). */
export type AgentInput = {
  slug?: string | undefined;
  voice_id?: string | null | undefined;
  avatar_id?: string | undefined;
  character_card?: CharacterCard | undefined;
  llm_provider?: string | undefined;
  llm_model?: string | undefined;
  thinking_level?: ThinkingLevel | undefined;
  web_search_enabled?: boolean | undefined;
  memory_enabled?: boolean | undefined;
  calendar_enabled?: boolean | undefined;
  documents_enabled?: boolean | undefined;
  language?: string | null | undefined;
  recording_enabled?: boolean | undefined;
} & Partial<Record<LegacyField, string | undefined>>;

/** Slugs: lower-case letters, digits and inner hyphens, 1 to 64 characters. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** One page of the Agent list. */
export interface AgentPage {
  agents: AgentRecord[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/**
 * Managed Agents: every rule of creating, editing, listing and publishing them. Voice
 * selections are checked against the public catalog of the same workspace and
 * environment, avatars against the built-in catalog, language models against what this
 * deployment has configured.
 */
export class Agents {
  constructor(
    readonly store: AgentStore,
    private readonly voices: PublicVoices,
    private readonly llm: LlmCatalog,
  ) {}

  async create(scope: TenantScope, input: AgentInput): Promise<AgentRecord> {
    if (input.slug === undefined) throw new ApiError('invalid_request', 'slug is required.');
    checkSlug(input.slug);
    const defaults = this.llm.defaultSelection();
    const base: AgentDraft = {
      characterCard: emptyCard(input.slug),
      voiceId: null,
      avatarId: DEFAULT_AVATAR_ID,
      llmProvider: defaults?.provider ?? null,
      llmModel: defaults?.model ?? null,
      thinkingLevel: 'off',
      webSearchEnabled: false,
      memoryEnabled: false,
      calendarEnabled: false,
      documentsEnabled: false,
      language: null,
      recordingEnabled: false,
    };
    const draft = await this.applyInput(scope, base, input);
    return this.store.create({ ...scope, slug: input.slug, draft });
  }

  /** The Agent, whether or not it is API-ready; `404 not_found` when there is none. */
  async get(scope: TenantScope, id: string): Promise<AgentRecord> {
    const found = await this.store.get(scope.workspaceId, scope.environment, id);
    if (!found) throw notFound(id);
    return found;
  }

  /** The Agent as `GET /v1/agents/{id}` answers it: `409 agent_not_api_ready` without a voice. */
  async getReady(scope: TenantScope, id: string): Promise<AgentRecord> {
    const agent = await this.get(scope, id);
    if (!(await this.hasPublicVoice(scope, agent.draft.voiceId))) throw notApiReady();
    return agent;
  }

  /**
   * API-ready Agents (with a public voice selection) in creation order: every one when
   * neither `limit` nor `cursor` is given (paging is opt-in), else one page (50 by default).
   */
  async list(
    scope: TenantScope,
    options: { cursor?: string | undefined; limit?: number | undefined; slug?: string | undefined },
  ): Promise<AgentPage> {
    const publicIds = await this.voices.ids(scope.workspaceId, scope.environment);
    const agents: AgentRecord[] = [];
    let after = options.cursor;
    const limit =
      options.limit ?? (options.cursor === undefined ? Number.POSITIVE_INFINITY : DEFAULT_PAGE);
    const batch = Number.isFinite(limit) ? limit + 1 : UNPAGED_BATCH;
    for (;;) {
      const rows = await this.store.list(scope.workspaceId, scope.environment, {
        afterId: after,
        limit: batch,
        slug: options.slug,
      });
      for (const row of rows) {
        if (row.draft.voiceId === null || !publicIds.has(row.draft.voiceId)) continue;
        if (agents.length === limit) {
          return { agents, nextCursor: agents.at(-1)?.id ?? null };
        }
        agents.push(row);
      }
      if (rows.length < batch) return { agents, nextCursor: null };
      after = rows.at(-1)?.id;
    }
  }

  /** Applies a patch as a new draft revision. */
  async update(scope: TenantScope, id: string, input: AgentInput): Promise<AgentRecord> {
    if (input.slug !== undefined) checkSlug(input.slug);
    const updated = await this.store.update(
      scope.workspaceId,
      scope.environment,
      id,
      async (current) => ({
        ...(input.slug !== undefined ? { slug: input.slug } : {}),
        draft: await this.applyInput(scope, current.draft, input),
      }),
    );
    if (!updated) throw notFound(id);
    return updated;
  }

  /**
   * Deletes the Agent and everything of it in the database; returns the ids of its deleted
   * sessions, whose recordings live in the audio store (`SessionRecordings.erase`).
   */
  async delete(scope: TenantScope, id: string): Promise<{ sessionIds: string[] }> {
    const deleted = await this.store.delete(scope.workspaceId, scope.environment, id);
    if (!deleted) throw notFound(id);
    return deleted;
  }

  /**
   * Publishes the current draft: `409 agent_not_api_ready` without a public voice, `409
   * conflict` when its language model is not offered by this deployment (any more).
   */
  async publish(scope: TenantScope, id: string): Promise<AgentRecord> {
    const published = await this.store.publish(
      scope.workspaceId,
      scope.environment,
      id,
      async (current) => {
        if (!(await this.hasPublicVoice(scope, current.draft.voiceId))) throw notApiReady();
        const { llmProvider, llmModel } = current.draft;
        if (llmProvider === null || llmModel === null || !this.llm.model(llmProvider, llmModel)) {
          throw new ApiError(
            'conflict',
            'The Agent has no language model this deployment offers; set llm_provider and llm_model.',
          );
        }
      },
    );
    if (!published) throw notFound(id);
    return published;
  }

  /** What sessions of the Agent run (never the draft); null when it was never published. */
  activePublication(scope: TenantScope, id: string): Promise<PublishedAgent | null> {
    return this.store.activePublication(scope.workspaceId, scope.environment, id);
  }

  /** True when `voiceId` is set and in the public catalog of the scope. */
  async hasPublicVoice(scope: TenantScope, voiceId: string | null): Promise<boolean> {
    return (
      voiceId !== null && (await this.voices.has(scope.workspaceId, scope.environment, voiceId))
    );
  }

  private async applyInput(
    scope: TenantScope,
    base: AgentDraft,
    input: AgentInput,
  ): Promise<AgentDraft> {
    const legacy = LEGACY_FIELDS.filter((field) => input[field] !== undefined);
    if (input.character_card !== undefined && legacy.length > 0) {
      throw new ApiError(
        'invalid_request',
        `character_card and legacy character fields (${legacy.join(', ')}) cannot be combined in one write.`,
      );
    }
    const characterCard = input.character_card ?? applyLegacyFields(base.characterCard, input);

    let voiceId = base.voiceId;
    if (input.voice_id !== undefined) {
      if (
        input.voice_id !== null &&
        !(await this.voices.has(scope.workspaceId, scope.environment, input.voice_id))
      ) {
        throw new ApiError('voice_not_found', `Voice ${input.voice_id} is not in this catalog.`);
      }
      voiceId = input.voice_id;
    }

    let avatarId = base.avatarId;
    if (input.avatar_id !== undefined) {
      if (!findAvatar(input.avatar_id)) {
        throw new ApiError('not_found', `No avatar ${input.avatar_id}; see GET /v1/avatars.`);
      }
      avatarId = input.avatar_id;
    }

    return {
      characterCard,
      voiceId,
      avatarId,
      ...this.llmSelection(base, input),
      webSearchEnabled: input.web_search_enabled ?? base.webSearchEnabled,
      memoryEnabled: input.memory_enabled ?? base.memoryEnabled,
      calendarEnabled: input.calendar_enabled ?? base.calendarEnabled,
      documentsEnabled: input.documents_enabled ?? base.documentsEnabled,
      language:
        input.language === undefined
          ? base.language
          : input.language === null
            ? null
            : canonicalLanguage(input.language),
      recordingEnabled: input.recording_enabled ?? base.recordingEnabled,
    };
  }

  /**
   * The language-model part of a write. A provider alone selects its first model; a model
   * alone stays with the current provider (or the first provider offering it). A selection
   * untouched by the write is kept as it is.
   */
  private llmSelection(
    base: AgentDraft,
    input: AgentInput,
  ): Pick<AgentDraft, 'llmProvider' | 'llmModel' | 'thinkingLevel'> {
    const thinkingLevel = input.thinking_level ?? base.thinkingLevel;
    if (
      input.llm_provider === undefined &&
      input.llm_model === undefined &&
      input.thinking_level === undefined
    ) {
      return { llmProvider: base.llmProvider, llmModel: base.llmModel, thinkingLevel };
    }
    const specs = this.llm.list();
    let provider = (input.llm_provider ?? base.llmProvider) as LlmProviderName | null;
    let model = input.llm_model ?? base.llmModel;
    if (
      input.llm_provider !== undefined &&
      input.llm_model === undefined &&
      input.llm_provider !== base.llmProvider
    ) {
      model = specs.find((spec) => spec.name === input.llm_provider)?.models[0]?.name ?? null;
    }
    if (input.llm_provider === undefined && input.llm_model !== undefined && provider === null) {
      provider =
        specs.find((spec) => spec.models.some((m) => m.name === input.llm_model))?.name ?? null;
    }
    if (provider === null || model === null) {
      if (input.llm_provider !== undefined || input.llm_model !== undefined) {
        // The software's document lists every model family; which models this deployment
        // runs is its configuration (GET /v1/models): naming another is a bad request.
        throw new ApiError(
          'invalid_request',
          `This deployment does not offer ${input.llm_provider ?? ''} ${input.llm_model ?? ''}; see GET /v1/models.`.replace(
            / +/g,
            ' ',
          ),
        );
      }
      return { llmProvider: provider, llmModel: model, thinkingLevel };
    }
    if (!this.llm.model(provider, model)) {
      throw new ApiError(
        'invalid_request',
        `llm_model "${model}" is not offered by llm_provider "${provider}"; see GET /v1/models.`,
      );
    }
    // Any level is kept as asked: a model runs it as the nearest level it supports (see
    // `nearestThinkingLevel`), so switching to a reasoning model later applies it.
    return { llmProvider: provider, llmModel: model, thinkingLevel };
  }
}

function checkSlug(slug: string): void {
  if (!SLUG_PATTERN.test(slug)) {
    throw new ApiError(
      'invalid_request',
      'slug must be 1 to 64 lower-case letters, digits and inner hyphens.',
    );
  }
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `No Agent ${id}.`);
}

function notApiReady(): ApiError {
  return new ApiError('agent_not_api_ready', 'The Agent has no public voice selection.');
}

/** `tag` in its canonical BCP 47 form (`es-mx` gives `es-MX`); `invalid_request` if it is none. */
export function canonicalLanguage(tag: string): string {
  try {
    const [canonical] = LANGUAGE_TAG_PATTERN.test(tag) ? Intl.getCanonicalLocales(tag) : [];
    // Aliases canonicalize to a language of two or three letters too (`iw` gives `he`).
    if (canonical && /^[a-z]{2,3}(?:-|$)/.test(canonical)) return canonical;
  } catch {
    // not a well-formed language tag
  }
  throw new ApiError(
    'invalid_request',
    `language must be a BCP 47 language tag such as "en", "es-MX" or "zh-Hans"; "${tag}" is not one.`,
  );
}
