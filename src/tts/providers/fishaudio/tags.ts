import { sanitizeVoiceTags } from '../upstream/voice-tags.ts';
import type { FishAudioTagStyle } from './models.ts';

/**
 * Request-wide voice tags as the inline cue prefix of a Fish Audio model: `[whispering] `
 * for the S2 family, `(whispering) ` for S1. Tags are sanitized first (markup and control
 * characters removed, see {@link sanitizeVoiceTags}); empty when no tag is left. Cues
 * already inside the text pass through unchanged.
 *
 * @example fishAudioTagPrefix(['sad', 'whispering'], 'parentheses') // '(sad) (whispering) '
 */
export function fishAudioTagPrefix(
  tags: readonly string[] | undefined,
  style: FishAudioTagStyle,
): string {
  const clean = sanitizeVoiceTags(tags);
  if (clean.length === 0) return '';
  const [open, close] = style === 'brackets' ? ['[', ']'] : ['(', ')'];
  return `${clean.map((tag) => `${open}${tag}${close}`).join(' ')} `;
}
