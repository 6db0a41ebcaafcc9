/**
 * Bracket characters every supported vendor reads as markup: `[...]` (ElevenLabs v3 and
 * Fish S2 cues), `(...)` (Fish S1 cues), `<...>` (SSML-style breaks, Fish `<|speaker:N|>`),
 * and `{...}` (reserved by some vendors for templating).
 */
const MARKUP_CHARACTERS = /[[\](){}<>]/g;
/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029]/gu;

/**
 * A request-wide voice tag made safe to wrap in a vendor's cue syntax.
 *
 * The service has already checked each tag (1 to 48 characters, no square brackets), but
 * an adapter must not let a tag close its own cue and open another, so every markup
 * character is removed (not escaped: no vendor documents an escape inside a cue), control
 * characters become spaces, and whitespace is collapsed. A tag left empty is dropped by
 * {@link sanitizeVoiceTags}.
 *
 * @example sanitizeVoiceTag(' whis)(pering\n softly ') // 'whispering softly'
 */
export function sanitizeVoiceTag(tag: string): string {
  return tag
    .replace(MARKUP_CHARACTERS, '')
    .replace(CONTROL_CHARACTERS, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Every tag sanitized, empty results and repeats dropped, order kept. */
export function sanitizeVoiceTags(tags: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const tag of tags ?? []) {
    const clean = sanitizeVoiceTag(tag);
    if (clean !== '' && !out.includes(clean)) out.push(clean);
  }
  return out;
}

/**
 * `text` behind its cue prefix; a tag-only request (no text) is the cues alone, without
 * the separating space.
 *
 * @example withCuePrefix('[sighs] ', '') // '[sighs]'
 */
export function withCuePrefix(prefix: string, text: string): string {
  return text === '' ? prefix.trimEnd() : `${prefix}${text}`;
}
