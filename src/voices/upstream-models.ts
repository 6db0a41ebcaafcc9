import { findElevenLabsModel } from '../providers/elevenlabs/models.ts';
import { findFishAudioModel } from '../providers/fishaudio/models.ts';
import type { UpstreamModelInfo } from '../providers/upstream/model-info.ts';
import type { UpstreamProviderKind } from '../providers/upstream-registry.ts';

/** Provider voice references: vendor ids are short and URL-safe. */
const PROVIDER_VOICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The model a route on `provider` may name, or undefined when routes cannot use it. */
export function upstreamModel(
  provider: UpstreamProviderKind,
  model: string,
): UpstreamModelInfo | undefined {
  return provider === 'elevenlabs' ? findElevenLabsModel(model) : findFishAudioModel(model);
}

/** True when `id` has the shape of a vendor voice reference. */
export function isProviderVoiceId(id: string): boolean {
  return PROVIDER_VOICE_ID.test(id);
}
