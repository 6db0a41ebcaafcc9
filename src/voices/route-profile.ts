import type { OutputFormat } from '../../media/formats.ts';
import { NATIVE_OUTPUT_FORMATS } from '../tts/providers/native/voices.ts';
import type { VoiceCapability } from '../tts/providers/provider.ts';
import { upstreamModel } from './upstream-models.ts';
import type { StoredRoute } from './voice-store.ts';

/** What a route delivers: its capabilities and output formats. */
export interface RouteProfile {
  capabilities: readonly VoiceCapability[];
  outputFormats: readonly OutputFormat[];
}

/** The model a native route names (espeak-ng with parameters derived from the samples). */
export const NATIVE_CLONE_MODEL = 'espeak-ng-derived';

/**
 * The profile of a route: what was stored when it was cloned, else what its model offers
 * (imported routes). Undefined when the route's model is unknown, so it cannot serve.
 */
export function routeProfile(route: StoredRoute): RouteProfile | undefined {
  if (route.capabilities !== null && route.outputFormats !== null) {
    return { capabilities: route.capabilities, outputFormats: route.outputFormats };
  }
  return modelProfile(route.provider, route.model);
}

/** The profile a new route on `provider`/`model` gets. */
export function modelProfile(
  provider: StoredRoute['provider'],
  model: string,
): RouteProfile | undefined {
  if (provider === 'native') {
    return model === NATIVE_CLONE_MODEL
      ? { capabilities: ['tts'], outputFormats: NATIVE_OUTPUT_FORMATS }
      : undefined;
  }
  const info = upstreamModel(provider, model);
  return info && { capabilities: info.capabilities, outputFormats: info.outputFormats };
}
