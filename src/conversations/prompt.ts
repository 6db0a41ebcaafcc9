import type { CardData } from '../agents/character-card.ts';
import type { LlmMessage } from '../llm/provider.ts';
import { type HistoryTurn, historyMessages } from './tool-history.ts';

/**
 * How a published character card becomes the messages a language model receives. Text
 * conversations (`/v1/agents/{id}/messages`) and the voice agent worker both render
 * through `renderCardPrompt`, so an Agent speaks the same way on either channel.
 */

/** `{{user}}` when the caller does not name its end user. */
export const DEFAULT_USER_NAME = 'User';
/** `{{char}}` when the card has no name. */
export const DEFAULT_CHAR_NAME = 'Assistant';

/**
 * The main prompt when the card has no `system_prompt`; a card's `{{original}}` stands for
 * it (character card V2/V3 convention).
 */
export const DEFAULT_MAIN_PROMPT =
  'You are {{char}}. Stay in character and reply to {{user}} as {{char}} would.';

/** The names the `{{char}}` and `{{user}}` macros stand for. */
export interface PromptNames {
  char: string;
  user: string;
}

/** One turn of a conversation as the model sees it, with the tool rounds it replays. */
export type PromptTurn = HistoryTurn;

/** One line-group of an example exchange; `narration` is text before any speaker label. */
export interface ExampleTurn {
  speaker: 'user' | 'char' | 'narration';
  text: string;
}

/** The names a card is rendered with: its own name and the end user's (or the defaults). */
export function promptNames(card: CardData, userName?: string | null): PromptNames {
  return {
    char: card.name.trim() || DEFAULT_CHAR_NAME,
    user: userName?.trim() || DEFAULT_USER_NAME,
  };
}

const MACRO = /\{\{\s*(char|user)\s*\}\}|<(USER|BOT|CHAR)>/gi;

/**
 * Replaces `{{char}}` and `{{user}}` (any letter case, inner spaces allowed) and the legacy
 * upper-case `<BOT>`, `<CHAR>` and `<USER>` in one pass, so a name that itself looks like a
 * macro is not substituted again.
 */
export function substituteNames(text: string, names: PromptNames): string {
  return text.replace(MACRO, (match, macro: string | undefined, legacy: string | undefined) => {
    if (legacy !== undefined && legacy !== legacy.toUpperCase()) return match;
    const which = (macro ?? legacy ?? '').toLowerCase();
    return which === 'user' ? names.user : names.char;
  });
}

/**
 * Parses `mes_example` into example exchanges: blocks separated by `<START>`, each a run of
 * turns that begin with a `{{user}}:` or `{{char}}:` label (or the names they stand for) at
 * the start of a line; following lines continue the turn. Text before the first label of a
 * block is kept as narration. Names are substituted in the text; empty blocks are dropped.
 */
export function parseExamples(mesExample: string, names: PromptNames): ExampleTurn[][] {
  const exchanges: ExampleTurn[][] = [];
  for (const block of mesExample.split(/<START>/i)) {
    const turns: ExampleTurn[] = [];
    for (const rawLine of substituteNames(block, names).split(/\r?\n/)) {
      const labelled = speakerOf(rawLine, names);
      if (labelled) {
        turns.push(labelled);
        continue;
      }
      const last = turns.at(-1);
      if (last) last.text += `\n${rawLine}`;
      else if (rawLine.trim() !== '') turns.push({ speaker: 'narration', text: rawLine });
    }
    const kept = turns
      .map((turn) => ({ speaker: turn.speaker, text: turn.text.trim() }))
      .filter((turn) => turn.text !== '');
    if (kept.length > 0) exchanges.push(kept);
  }
  return exchanges;
}

function speakerOf(line: string, names: PromptNames): ExampleTurn | undefined {
  const trimmed = line.trimStart();
  // The user's label is tried first: with equal names a line reads as the user's.
  for (const [speaker, name] of [
    ['user', names.user],
    ['char', names.char],
  ] as const) {
    if (trimmed.startsWith(`${name}:`)) {
      return { speaker, text: trimmed.slice(name.length + 1).trimStart() };
    }
  }
  return undefined;
}

/**
 * The system prompt of a card: its `system_prompt` (with `{{original}}` standing for the
 * default main prompt), or the default, followed by the description, the personality and
 * the scenario, each when present.
 */
export function renderSystemPrompt(card: CardData, names: PromptNames): string {
  const main = card.system_prompt.trim()
    ? card.system_prompt.replace(/\{\{\s*original\s*\}\}/gi, DEFAULT_MAIN_PROMPT)
    : DEFAULT_MAIN_PROMPT;
  const parts = [main];
  if (card.description.trim()) parts.push(card.description);
  if (card.personality.trim()) parts.push(`{{char}}'s personality: ${card.personality}`);
  if (card.scenario.trim()) parts.push(`Scenario: ${card.scenario}`);
  return substituteNames(parts.map((part) => part.trim()).join('\n\n'), names);
}

/** The example exchanges as one block of text, or undefined when the card has none. */
export function renderExamples(card: CardData, names: PromptNames): string | undefined {
  const exchanges = parseExamples(card.mes_example, names);
  if (exchanges.length === 0) return undefined;
  const label = { user: `${names.user}: `, char: `${names.char}: `, narration: '' };
  const blocks = exchanges.map(
    (turns) =>
      `<example>\n${turns.map((turn) => `${label[turn.speaker]}${turn.text}`).join('\n')}\n</example>`,
  );
  return [
    `Example exchanges showing how ${names.char} speaks (they are not part of this conversation):`,
    ...blocks,
  ].join('\n\n');
}

/** The opening assistant message of a new conversation (`first_mes`), or undefined. */
export function renderOpeningMessage(card: CardData, names: PromptNames): string | undefined {
  const text = substituteNames(card.first_mes, names).trim();
  return text === '' ? undefined : text;
}

/**
 * The messages a model receives for one turn: the system prompt, the capabilities'
 * instructions (when any), the example exchanges (a system message), the conversation so far (which starts with the opening
 * message when the card has one; an answer with tool rounds brings its tool calls and
 * results), and `post_history_instructions` as a last system message. Conversation text is
 * passed through unchanged.
 */
export function renderCardPrompt(
  card: CardData,
  options: {
    userName?: string | null | undefined;
    history: readonly PromptTurn[];
    /** What the Agent's capabilities add (memories, documents, ...): one system message. */
    capabilityInstructions?: readonly string[];
  },
): LlmMessage[] {
  const names = promptNames(card, options.userName);
  const messages: LlmMessage[] = [{ role: 'system', content: renderSystemPrompt(card, names) }];
  if (options.capabilityInstructions?.length) {
    messages.push({ role: 'system', content: options.capabilityInstructions.join('\n\n') });
  }
  const examples = renderExamples(card, names);
  if (examples !== undefined) messages.push({ role: 'system', content: examples });
  for (const turn of options.history) messages.push(...historyMessages(turn));
  const after = substituteNames(
    card.post_history_instructions.replace(/\{\{\s*original\s*\}\}/gi, ''),
    names,
  ).trim();
  if (after !== '') messages.push({ role: 'system', content: after });
  return messages;
}
