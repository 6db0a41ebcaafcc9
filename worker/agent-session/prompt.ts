import type { CharacterCard, SessionContext } from '../../src/worker-boundary/index.ts';

/** What an Agent session says to the model before any turn, and how it greets. */
export interface RenderedPrompt {
  /** System instructions (the Agent's `instructions` in the LiveKit session). */
  instructions: string;
  /** `first_mes` with its macros expanded; empty when the card has none. */
  greeting: string;
}

/**
 * Renders a character card for an Agent session: `{{char}}` and `{{user}}` macros, the
 * card's system prompt, description, personality, scenario, example dialogue, what the
 * Agent's capabilities add (memories, documents, ...), the session context (name, local
 * time) and post-history instructions.
 *
 * Kept behind this one function so the text messages route's renderer
 * (`src/agents/prompt.ts`) can replace it without touching the session code.
 */
export function renderSessionPrompt(
  card: CharacterCard,
  context: SessionContext | null,
  capabilityInstructions: readonly string[] = [],
  now: Date = new Date(),
): RenderedPrompt {
  const charName = card.data.name || 'Assistant';
  const userName = context?.userName || 'User';
  const expand = (text: string) =>
    text
      .replace(/\{\{char\}\}/gi, charName)
      .replace(/\{\{user\}\}/gi, userName)
      .trim();
  const parts: string[] = [];
  const system = expand(card.data.system_prompt);
  parts.push(system || `You are ${charName}. Stay in character.`);
  if (card.data.description) parts.push(`About ${charName}:\n${expand(card.data.description)}`);
  if (card.data.personality) {
    parts.push(`${charName}'s personality: ${expand(card.data.personality)}`);
  }
  if (card.data.scenario) parts.push(`Scenario: ${expand(card.data.scenario)}`);
  if (card.data.mes_example) {
    parts.push(`Example dialogue:\n${expand(card.data.mes_example.replace(/<START>/gi, ''))}`);
  }
  parts.push(...capabilityInstructions);
  if (context?.userName) parts.push(`You are talking with ${context.userName}.`);
  if (context?.timeZone) {
    const local = now.toLocaleString('en-GB', {
      timeZone: context.timeZone,
      dateStyle: 'full',
      timeStyle: 'short',
    });
    parts.push(`The user's local time is ${local} (${context.timeZone}).`);
  }
  parts.push(
    'This is a spoken conversation: answer in short, natural sentences without markup. ' +
      'If you should not answer this turn at all, call the stay_quiet tool with a short reason.',
  );
  if (card.data.post_history_instructions) parts.push(expand(card.data.post_history_instructions));
  return { instructions: parts.join('\n\n'), greeting: expand(card.data.first_mes) };
}
