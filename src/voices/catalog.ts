import type { OutputFormat } from '../../media/formats.ts';
import type { Environment } from '../config.ts';
import { NATIVE_VOICES, type NativeVoice } from '../providers/native/index.ts';
import type { TtsProvider, VoiceCapability } from '../providers/provider.ts';

/** Price of a route, in millicredits per 1,000 characters. */
export interface RoutePricing {
  millicreditsPer1kChars: number;
  /** True on upstream routes billed at provider cost. */
  passThrough: boolean;
}

/** The route a voice is synthesized through. Internal: never shown to clients. */
export interface ResolvedRoute {
  /** Stable internal name for the ledger, e.g. `native:en-us+f3`. */
  id: string;
  provider: TtsProvider;
  providerVoiceId: string;
  model?: string;
  pricing: RoutePricing;
}

/** A voice as the catalog knows it: the public entry and the route behind it. */
export interface CatalogVoice {
  id: string;
  name: string;
  nsfw: boolean;
  outputFormats: readonly OutputFormat[];
  capabilities: readonly VoiceCapability[];
  route: ResolvedRoute;
}

/** Public catalog entry, exactly the spec's fields. */
export interface VoiceEntry {
  id: string;
  name: string;
  output_formats: OutputFormat[];
  capabilities: VoiceCapability[];
  nsfw: boolean;
}

export function toVoiceEntry(voice: CatalogVoice): VoiceEntry {
  return {
    id: voice.id,
    name: voice.name,
    output_formats: [...voice.outputFormats],
    capabilities: [...voice.capabilities],
    nsfw: voice.nsfw,
  };
}

/**
 * The voices a workspace may use in one environment. Built-in native voices are enabled
 * for every workspace with the `tts` product (the route check has already enforced it).
 */
export class VoiceCatalog {
  private readonly native: CatalogVoice[];
  private readonly nativeById: Map<string, CatalogVoice>;

  constructor(options: { nativeProvider: TtsProvider; nativePricing: RoutePricing }) {
    this.native = NATIVE_VOICES.map((voice: NativeVoice) => ({
      id: voice.id,
      name: voice.name,
      nsfw: voice.nsfw,
      outputFormats: voice.outputFormats,
      capabilities: voice.capabilities,
      route: {
        id: `${options.nativeProvider.name}:${voice.providerVoiceId}`,
        provider: options.nativeProvider,
        providerVoiceId: voice.providerVoiceId,
        pricing: options.nativePricing,
      },
    }));
    this.nativeById = new Map(this.native.map((voice) => [voice.id, voice]));
  }

  async list(_organizationId: string, _environment: Environment): Promise<CatalogVoice[]> {
    return this.native;
  }

  /** The voice, or null when it does not exist or is not enabled for the caller. */
  async resolve(
    _organizationId: string,
    _environment: Environment,
    voiceId: string,
  ): Promise<CatalogVoice | null> {
    return this.nativeById.get(voiceId) ?? null;
  }
}
