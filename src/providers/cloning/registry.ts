import { ElevenLabsVoiceCloner } from '../elevenlabs/voice-cloning.ts';
import { FishAudioVoiceCloner } from '../fishaudio/voice-cloning.ts';
import type { UpstreamTimeouts } from '../upstream/timeouts.ts';
import type {
  UpstreamAccount,
  UpstreamProviderKind,
  UpstreamVendorSettings,
} from '../upstream-registry.ts';
import type { VoiceCloner } from './cloner.ts';

/**
 * One {@link VoiceCloner} per vendor account (and per vendor for the deployment's key),
 * created on first use and replaced when the account's key changes.
 */
export class VoiceClonerRegistry {
  readonly #entries = new Map<string, { version: string; cloner: VoiceCloner }>();

  constructor(
    private readonly options: {
      vendors: { readonly [K in UpstreamProviderKind]: UpstreamVendorSettings };
      timeouts?: Partial<UpstreamTimeouts>;
    },
  ) {}

  cloner(kind: UpstreamProviderKind, account: UpstreamAccount | null): VoiceCloner {
    const key = `${kind}:${account?.id ?? 'deployment'}`;
    const version = account?.version ?? 'deployment';
    const existing = this.#entries.get(key);
    if (existing && existing.version === version) return existing.cloner;
    existing?.cloner.close();
    const vendor = this.options.vendors[kind];
    const settings = {
      baseUrl: vendor.baseUrl,
      apiKey: account ? account.apiKey : vendor.apiKey,
      timeouts: this.options.timeouts,
    };
    const cloner =
      kind === 'elevenlabs'
        ? new ElevenLabsVoiceCloner(settings)
        : new FishAudioVoiceCloner(settings);
    this.#entries.set(key, { version, cloner });
    return cloner;
  }

  close(): void {
    for (const entry of this.#entries.values()) entry.cloner.close();
    this.#entries.clear();
  }
}
