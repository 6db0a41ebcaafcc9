import { ApiError } from '../../errors.ts';
import { ALIGNMENT_CAPABILITY, type AlignmentGranularity } from '../providers/alignment.ts';
import type { TtsProvider, VoiceCapability } from '../providers/provider.ts';

/** `capabilities` with the alignment capabilities of `provider` added. */
export function withAlignmentCapabilities(
  capabilities: readonly VoiceCapability[],
  provider: TtsProvider,
): readonly VoiceCapability[] {
  const added = (provider.alignment ?? []).map((granularity) => ALIGNMENT_CAPABILITY[granularity]);
  return [...capabilities, ...added.filter((capability) => !capabilities.includes(capability))];
}

/** Whether a route or voice with `capabilities` times its audio at `granularity`. */
export function canAlign(
  capabilities: readonly VoiceCapability[],
  granularity: AlignmentGranularity,
): boolean {
  return capabilities.includes(ALIGNMENT_CAPABILITY[granularity]);
}

/**
 * Refuses a request for timings the voice cannot give (`invalid_request`): timings are
 * measured, never estimated.
 */
export function requireAlignment(
  capabilities: readonly VoiceCapability[],
  granularity: AlignmentGranularity | undefined,
): void {
  if (granularity === undefined || canAlign(capabilities, granularity)) return;
  throw new ApiError(
    'invalid_request',
    `This voice cannot time its audio by ${granularity}: it does not list ${ALIGNMENT_CAPABILITY[granularity]} in its capabilities.`,
  );
}
