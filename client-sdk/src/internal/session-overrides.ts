import { ConversationError } from '../errors.ts';
import type { SessionOverrides } from '../options.ts';

function invalid(message: string): ConversationError {
  return new ConversationError('invalid_options', message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks `overrides` before any request (the spec's character-card rule 5): a complete
 * `characterCard`, or the legacy `persona` / `systemPrompt`, never both. The api checks the
 * card's fields; here only its envelope. Returns the overrides to send, or undefined.
 */
export function checkOverrides(value: SessionOverrides | undefined): SessionOverrides | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    throw invalid('overrides must be an object: {characterCard} or {persona?, systemPrompt?}.');
  }
  const known = ['characterCard', 'persona', 'systemPrompt'];
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw invalid(
      `overrides accepts characterCard, persona and systemPrompt (got ${unknown.join(', ')}).`,
    );
  }
  const { characterCard, persona, systemPrompt } = value as Record<string, unknown>;
  if (characterCard !== undefined && (persona !== undefined || systemPrompt !== undefined)) {
    throw invalid(
      'overrides.characterCard replaces the whole card: do not combine it with overrides.persona or overrides.systemPrompt.',
    );
  }
  if (characterCard !== undefined) {
    if (
      !isObject(characterCard) ||
      characterCard.spec !== 'chara_card_v3' ||
      characterCard.spec_version !== '3.0' ||
      !isObject(characterCard.data)
    ) {
      throw invalid(
        "overrides.characterCard must be a character card V3: {spec: 'chara_card_v3', spec_version: '3.0', data: {...}}.",
      );
    }
    return { characterCard: characterCard as never };
  }
  for (const [key, field] of [
    ['persona', persona],
    ['systemPrompt', systemPrompt],
  ] as const) {
    if (field !== undefined && typeof field !== 'string') {
      throw invalid(`overrides.${key} must be a string.`);
    }
  }
  const legacy: { persona?: string; systemPrompt?: string } = {};
  if (persona !== undefined) legacy.persona = persona as string;
  if (systemPrompt !== undefined) legacy.systemPrompt = systemPrompt as string;
  return Object.keys(legacy).length > 0 ? legacy : undefined;
}
