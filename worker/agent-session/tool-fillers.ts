/**
 * What an Agent says while a tool call keeps the user waiting, by the primary language
 * subtag of the Agent's language: the languages the built-in voices speak, plus the most
 * common others. Short and neutral, so it fits any question and any character.
 */
export const TOOL_FILLERS: Readonly<Record<string, string>> = {
  en: 'One moment, let me check that.',
  de: 'Einen Moment, ich sehe kurz nach.',
  es: 'Un momento, déjame comprobarlo.',
  fr: 'Un instant, je vérifie.',
  it: 'Un momento, controllo subito.',
  pt: 'Um momento, deixe-me verificar.',
  nl: 'Een ogenblik, ik kijk het even na.',
  pl: 'Chwileczkę, już sprawdzam.',
  ru: 'Одну минуту, сейчас проверю.',
  hi: 'एक पल, मैं देख लेता हूँ।',
  ja: '少々お待ちください、確認します。',
  zh: '请稍等，我查一下。',
};

/**
 * The filler phrase for an Agent of `language` (a BCP 47 tag): English when no language is
 * known (the Agent's and its voice's language both unset), none for a language the table
 * does not have (a phrase in another language than the conversation's is worse than a
 * pause).
 */
export function toolFiller(language: string | null | undefined): string | undefined {
  if (!language) return TOOL_FILLERS.en;
  const primary = language.split('-')[0]?.toLowerCase() ?? '';
  return TOOL_FILLERS[primary];
}
