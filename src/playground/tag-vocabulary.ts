/** What a tag changes: the feeling, the way of speaking, or a sound made between words. */
export type VoiceTagKind = 'emotion' | 'delivery' | 'sound';

/** A tag the Playground suggests, written inline as `[tag]`. */
export interface VoiceTagEntry {
  readonly tag: string;
  readonly kind: VoiceTagKind;
  readonly description: string;
}

/**
 * The tags the Playground offers (inline search after `[`) and Auto Tag draws from. Routes
 * with `voice_tags` (ElevenLabs v3, Fish Audio S2) read free-form bracketed cues, so any
 * other words work too; these are the common ones both vendors read well.
 */
export const VOICE_TAG_VOCABULARY: readonly VoiceTagEntry[] = [
  { tag: 'excited', kind: 'emotion', description: 'Energetic, enthusiastic' },
  { tag: 'happy', kind: 'emotion', description: 'Warm and cheerful' },
  { tag: 'sad', kind: 'emotion', description: 'Downcast, sorrowful' },
  { tag: 'angry', kind: 'emotion', description: 'Irritated or furious' },
  { tag: 'curious', kind: 'emotion', description: 'Inquisitive, wondering' },
  { tag: 'surprised', kind: 'emotion', description: 'Astonished' },
  { tag: 'nervous', kind: 'emotion', description: 'Anxious, hesitant' },
  { tag: 'calm', kind: 'emotion', description: 'Relaxed and even' },
  { tag: 'sarcastic', kind: 'emotion', description: 'Dry, mocking' },
  { tag: 'thoughtful', kind: 'emotion', description: 'Reflective, considered' },
  { tag: 'whispers', kind: 'delivery', description: 'Whispered, quiet' },
  { tag: 'shouts', kind: 'delivery', description: 'Loud, projected' },
  { tag: 'softly', kind: 'delivery', description: 'Gentle and low' },
  { tag: 'laughs', kind: 'sound', description: 'A laugh' },
  { tag: 'chuckles', kind: 'sound', description: 'A short, quiet laugh' },
  { tag: 'sighs', kind: 'sound', description: 'A sigh' },
  { tag: 'gasps', kind: 'sound', description: 'A sharp intake of breath' },
  { tag: 'clears throat', kind: 'sound', description: 'Clears the throat' },
];

/** The vocabulary's tags whose name contains `search` (case-insensitive), in list order. */
export function searchVoiceTags(search: string): VoiceTagEntry[] {
  const needle = search.trim().toLowerCase();
  return VOICE_TAG_VOCABULARY.filter((entry) => entry.tag.includes(needle));
}
