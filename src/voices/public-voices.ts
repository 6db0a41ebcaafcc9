import type { Environment } from '../app/config.ts';
import { NATIVE_VOICES } from '../tts/providers/native/voices.ts';
import { routeProfile } from './route-profile.ts';
import { type StoredVoice, servingRoute, type VoiceStore } from './voice-store.ts';

/**
 * Which voice ids are in the public catalog of a workspace and environment, without
 * building providers: the built-in voices, and stored voices with a Ready enabled route on
 * a known model (the same rule `VoiceCatalog` serves by). Agents use it to check their
 * voice selection; the operator tool uses it without starting any engine.
 */
export class PublicVoices {
  private readonly nativeIds = new Set(NATIVE_VOICES.map((voice) => voice.id));

  constructor(private readonly store: VoiceStore) {}

  async has(workspaceId: string, environment: Environment, voiceId: string): Promise<boolean> {
    if (this.nativeIds.has(voiceId)) return true;
    if (!voiceId.startsWith('voice_')) return false;
    const stored = await this.store.find(workspaceId, environment, voiceId);
    return stored !== null && stored !== undefined && isPublic(stored);
  }

  /** Every public voice id of the workspace and environment. */
  async ids(workspaceId: string, environment: Environment): Promise<Set<string>> {
    const stored = await this.store.list(workspaceId, environment);
    return new Set([...this.nativeIds, ...stored.filter(isPublic).map((voice) => voice.id)]);
  }
}

function isPublic(voice: StoredVoice): boolean {
  const route = servingRoute(voice);
  return route !== null && routeProfile(route) !== undefined;
}
