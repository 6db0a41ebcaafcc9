/** A voice in a fake vendor's catalog. */
export interface FakeCatalogVoice {
  id: string;
  name: string;
  description?: string;
  language?: string;
  /** ElevenLabs shared voices: the owner's public id. */
  publicOwnerId?: string;
  /** Fish Audio: `trained` unless stated. */
  state?: string;
}

/** Voices whose name contains `search` (case-insensitive), as both vendors filter. */
export function searchVoices(voices: readonly FakeCatalogVoice[], search: string | undefined) {
  if (!search) return [...voices];
  const needle = search.toLowerCase();
  return voices.filter((voice) => voice.name.toLowerCase().includes(needle));
}

/** A page size query value, within the vendor's documented bounds. */
export function pageSize(value: string | undefined, fallback: number, max: number): number | null {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : null;
}
