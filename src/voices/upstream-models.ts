import { findElevenLabsModel } from '../providers/elevenlabs/models.ts';
import { isElevenLabsVoiceId } from '../providers/elevenlabs/provider.ts';
import { findFishAudioModel } from '../providers/fishaudio/models.ts';
import { isFishAudioReferenceId } from '../providers/fishaudio/provider.ts';
import type { UpstreamModelInfo } from '../providers/upstream/model-info.ts';
import type { UpstreamProviderKind } from '../providers/upstream-registry.ts';

/** The model a route on `provider` may name, or undefined when routes cannot use it. */
export function upstreamModel(
  provider: UpstreamProviderKind,
  model: string,
): UpstreamModelInfo | undefined {
  return provider === 'elevenlabs' ? findElevenLabsModel(model) : findFishAudioModel(model);
}

/** True when `id` has the shape of a voice reference at `provider` (its adapter's rule). */
export function isProviderVoiceId(provider: UpstreamProviderKind, id: string): boolean {
  return provider === 'elevenlabs' ? isElevenLabsVoiceId(id) : isFishAudioReferenceId(id);
}
