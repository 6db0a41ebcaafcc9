import { sanitizeVoiceTags } from '../upstream/voice-tags.ts';

/**
 * Request-wide voice tags as the inline audio-tag prefix Eleven v3 reads, each tag in
 * square brackets, e.g. `[whispering] [curious] `. Tags are sanitized first (markup and
 * control characters removed, see {@link sanitizeVoiceTags}); empty when no tag is left.
 * Cues already inside the text pass through unchanged.
 *
 * @example elevenLabsTagPrefix(['whispering', 'curious']) // '[whispering] [curious] '
 */
export function elevenLabsTagPrefix(tags: readonly string[] | undefined): string {
  const clean = sanitizeVoiceTags(tags);
  return clean.length === 0 ? '' : `${clean.map((tag) => `[${tag}]`).join(' ')} `;
}
