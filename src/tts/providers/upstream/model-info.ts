import type { OutputFormat } from '../../../../media/formats.ts';
import type { VoiceCapability } from '../provider.ts';

/**
 * What the service needs to know about one upstream model to publish a route on it:
 * its capabilities, the output formats a route on it may advertise, and the PCM rates the
 * vendor produces natively (the adapter asks for the caller's rate when it is one of them,
 * so no resampling happens on our side).
 */
export interface UpstreamModelInfo {
  /** Vendor model id, as a route's `model`. */
  readonly model: string;
  readonly capabilities: readonly VoiceCapability[];
  readonly outputFormats: readonly OutputFormat[];
  readonly nativeSampleRates: readonly number[];
}

/**
 * The native rate to request for a caller who will deliver `preferredHz`: that rate when
 * the vendor offers it, otherwise `lowHz` for callers at or below it (and callers with no
 * preference), else `highHz`. The service resamples whatever comes back.
 *
 * @example chooseSampleRate([16000, 24000, 44100], 22050, 24000, 44100) // 24000
 */
export function chooseSampleRate(
  nativeRates: readonly number[],
  preferredHz: number | undefined,
  lowHz: number,
  highHz: number,
): number {
  if (preferredHz === undefined) return lowHz;
  if (nativeRates.includes(preferredHz)) return preferredHz;
  return preferredHz <= lowHz ? lowHz : highHz;
}
