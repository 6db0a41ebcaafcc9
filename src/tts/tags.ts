import { ApiError } from '../errors.ts';
import type { VoiceCapability } from './providers/provider.ts';

/** Inline bracketed cues such as `[whispering]` or `[laughs softly]` inside the text. */
const INLINE_CUE = /\[[^[\]\n]{0,200}\]/g;
/** Something a voice can say: a letter or a digit in any script. */
const SPEAKABLE = /[\p{L}\p{N}]/u;

export interface PreparedText {
  /** Text to dispatch to the route, unsupported cues removed. */
  text: string;
  /** Tags the route will apply (empty on routes without `voice_tags`). */
  voiceTags: string[];
  /** True when the route cannot apply tags and the request had some: they were removed. */
  tagsSkipped: boolean;
}

/**
 * Prepares text and tags for one route. On a route without `voice_tags`, structured tags
 * and inline bracketed cues are dropped and the rest is spoken; a request with nothing
 * speakable left (tag-only on such a route, or text made only of cues) is
 * `invalid_request`. Conversion of tags to a provider's own syntax happens in its adapter.
 */
export function prepareText(
  text: string,
  voiceTags: readonly string[] | undefined,
  capabilities: readonly VoiceCapability[],
): PreparedText {
  const tags = voiceTags ?? [];
  if (capabilities.includes('voice_tags')) {
    if (!SPEAKABLE.test(text) && tags.length === 0) {
      throw new ApiError('invalid_request', 'The text has nothing to speak.');
    }
    return { text, voiceTags: [...tags], tagsSkipped: false };
  }
  const stripped = stripInlineCues(text);
  if (!SPEAKABLE.test(stripped)) {
    throw new ApiError(
      'invalid_request',
      tags.length > 0 && text.trim() === ''
        ? 'This voice does not support voice_tags: a tag-only request needs a voice that lists voice_tags.'
        : 'Nothing speakable remains once unsupported voice cues are removed.',
    );
  }
  return { text: stripped, voiceTags: [], tagsSkipped: tags.length > 0 || hasInlineCues(text) };
}

/** True when `text` holds at least one inline `[cue]`. */
export function hasInlineCues(text: string): boolean {
  return text.includes('[') && new RegExp(INLINE_CUE.source).test(text);
}

/** Removes inline `[cue]` segments and tidies the whitespace they leave. */
export function stripInlineCues(text: string): string {
  if (!text.includes('[')) return text;
  return text
    .replace(INLINE_CUE, ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ +([,.;:!?])/g, '$1')
    .trim();
}

/** Length in Unicode code points, the unit of every text limit and of billing. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
