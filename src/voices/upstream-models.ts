import type { UpstreamModelInfo } from '../tts/providers/upstream/model-info.ts';
import type { UpstreamProviderKind } from '../tts/providers/upstream-registry.ts';
import { registeredVendor } from '../tts/providers/vendors.ts';

/** The model a route on `provider` may name, or undefined when routes cannot use it. */
export function upstreamModel(
  provider: UpstreamProviderKind,
  model: string,
): UpstreamModelInfo | undefined {
  return registeredVendor(provider)?.findModel(model);
}

/** True when `id` has the shape of a voice reference at `provider` (its adapter's rule). */
export function isProviderVoiceId(provider: UpstreamProviderKind, id: string): boolean {
  return registeredVendor(provider)?.isVoiceId(id) ?? false;
}
