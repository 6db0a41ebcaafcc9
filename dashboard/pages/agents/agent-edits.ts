import type {
  Agent,
  CharacterCard,
  CharacterCardData,
  LlmProviderOption,
  ThinkingLevel,
} from './agent-types.ts';

/** Card text fields the editor shows as they are. */
export const CARD_TEXT_FIELDS = [
  'name',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'system_prompt',
  'post_history_instructions',
  'mes_example',
  'creator_notes',
] as const satisfies readonly (keyof CharacterCardData)[];

/** Card list fields the editor shows as one text (tags comma separated, greetings by line). */
export const CARD_LIST_FIELDS = [
  'tags',
  'alternate_greetings',
] as const satisfies readonly (keyof CharacterCardData)[];

export type CardTextField = (typeof CARD_TEXT_FIELDS)[number];
export type CardListField = (typeof CARD_LIST_FIELDS)[number];

/** What the Edit Agent form holds: every control as the text or choice it shows. */
export interface AgentFormValues {
  /** '' while the Agent has no voice. */
  voiceId: string;
  /** BCP 47 tag; '' while the Agent has none. */
  language: string;
  avatarId: string;
  /** '' while the Agent has no language model. */
  llmProvider: string;
  llmModel: string;
  thinkingLevel: ThinkingLevel;
  webSearchEnabled: boolean;
  memoryEnabled: boolean;
  calendarEnabled: boolean;
  documentsEnabled: boolean;
  recordingEnabled: boolean;
  card: Record<CardTextField | CardListField, string>;
}

/** The body of `PATCH /operator/api/agents/{id}` the editor sends (never legacy fields). */
export interface AgentPatch {
  voice_id?: string | null;
  language?: string | null;
  avatar_id?: string;
  llm_provider?: string;
  llm_model?: string;
  thinking_level?: ThinkingLevel;
  web_search_enabled?: boolean;
  memory_enabled?: boolean;
  calendar_enabled?: boolean;
  documents_enabled?: boolean;
  recording_enabled?: boolean;
  character_card?: CharacterCard;
}

/** How each list field is shown in one text control and read back from it. */
const LIST_TEXT: Record<
  CardListField,
  { format(items: string[]): string; parse(text: string): string[] }
> = {
  tags: {
    format: (items) => items.join(', '),
    parse: (text) =>
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
  },
  alternate_greetings: {
    format: (items) => items.join('\n'),
    parse: (text) =>
      text
        .split(/\r?\n/)
        .map((item) => item.trim())
        .filter((item) => item !== ''),
  },
};

/**
 * True when the list reads back unchanged from its text: a tag holding a comma or a greeting
 * spanning several lines would not, so the editor leaves such a field as it is stored.
 */
export function listEditable(field: CardListField, items: readonly string[]): boolean {
  const text = LIST_TEXT[field];
  const back = text.parse(text.format([...items]));
  return back.length === items.length && back.every((item, i) => item === items[i]);
}

/** The form's values for an Agent as stored. */
export function formValuesOf(agent: Agent): AgentFormValues {
  const data = agent.character_card.data;
  const card = Object.fromEntries([
    ...CARD_TEXT_FIELDS.map((field) => [field, data[field]]),
    ...CARD_LIST_FIELDS.map((field) => [field, LIST_TEXT[field].format(data[field])]),
  ]) as AgentFormValues['card'];
  return {
    voiceId: agent.voice_id ?? '',
    language: agent.language ?? '',
    avatarId: agent.avatar_id,
    llmProvider: agent.llm_provider ?? '',
    llmModel: agent.llm_model ?? '',
    thinkingLevel: agent.thinking_level,
    webSearchEnabled: agent.web_search_enabled,
    memoryEnabled: agent.memory_enabled,
    calendarEnabled: agent.calendar_enabled,
    documentsEnabled: agent.documents_enabled,
    recordingEnabled: agent.recording_enabled,
    card,
  };
}

/**
 * The Agent's whole card with the fields the form changed replaced; undefined when none
 * changed. Every other field (creator, character_version, group_only_greetings,
 * extensions, a list left untouched) is sent back exactly as loaded, because a
 * `character_card` in a PATCH replaces the whole card.
 */
function editedCard(
  card: CharacterCard,
  initial: AgentFormValues['card'],
  values: AgentFormValues['card'],
): CharacterCard | undefined {
  const data: CharacterCardData = structuredClone(card.data);
  let changed = false;
  for (const field of CARD_TEXT_FIELDS) {
    if (values[field] === initial[field]) continue;
    data[field] = values[field];
    changed = true;
  }
  for (const field of CARD_LIST_FIELDS) {
    if (values[field] === initial[field]) continue;
    data[field] = LIST_TEXT[field].parse(values[field]);
    changed = true;
  }
  return changed ? { spec: card.spec, spec_version: card.spec_version, data } : undefined;
}

/** The PATCH body for what the form changed since `initial`; `{}` when nothing changed. */
export function patchOf(
  agent: Agent,
  initial: AgentFormValues,
  values: AgentFormValues,
): AgentPatch {
  const patch: AgentPatch = {};
  const card = editedCard(agent.character_card, initial.card, values.card);
  if (card) patch.character_card = card;
  if (values.voiceId !== initial.voiceId) patch.voice_id = values.voiceId || null;
  if (values.language.trim() !== initial.language) patch.language = values.language.trim() || null;
  if (values.avatarId !== initial.avatarId) patch.avatar_id = values.avatarId;
  if (
    values.llmProvider !== initial.llmProvider ||
    values.llmModel !== initial.llmModel ||
    values.thinkingLevel !== initial.thinkingLevel
  ) {
    // All three, so the server applies exactly the selection shown.
    patch.llm_provider = values.llmProvider;
    patch.llm_model = values.llmModel;
    patch.thinking_level = values.thinkingLevel;
  }
  const switches = [
    ['webSearchEnabled', 'web_search_enabled'],
    ['memoryEnabled', 'memory_enabled'],
    ['calendarEnabled', 'calendar_enabled'],
    ['documentsEnabled', 'documents_enabled'],
    ['recordingEnabled', 'recording_enabled'],
  ] as const;
  for (const [field, wire] of switches) {
    if (values[field] !== initial[field]) patch[wire] = values[field];
  }
  return patch;
}

/** Thinking levels of a model the deployment offers; `off` only for one it does not. */
export function thinkingLevelsOf(
  providers: readonly LlmProviderOption[],
  provider: string,
  model: string,
): ThinkingLevel[] {
  const found = providers
    .find((option) => option.name === provider)
    ?.models.find((option) => option.name === model);
  return found ? found.thinking_levels : ['off'];
}

/**
 * The language-model part of the form after choosing `provider` and `model` (a provider
 * alone picks its first model, as the server does); a thinking level the new model does
 * not allow falls back to `off`.
 */
export function withModel(
  values: AgentFormValues,
  providers: readonly LlmProviderOption[],
  provider: string,
  model?: string,
): AgentFormValues {
  const llmModel =
    model ?? providers.find((option) => option.name === provider)?.models[0]?.name ?? '';
  const levels = thinkingLevelsOf(providers, provider, llmModel);
  return {
    ...values,
    llmProvider: provider,
    llmModel,
    thinkingLevel: levels.includes(values.thinkingLevel) ? values.thinkingLevel : 'off',
  };
}
