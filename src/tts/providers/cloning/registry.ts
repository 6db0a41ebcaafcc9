import type { UpstreamTimeouts } from '../upstream/timeouts.ts';
import type { UpstreamAccount, UpstreamProviderKind } from '../upstream-registry.ts';
import type { ConfiguredVendor } from '../vendor-descriptor.ts';
import { configuredVendor } from '../vendors.ts';
import type { VoiceCloner } from './cloner.ts';

/**
 * One {@link VoiceCloner} per vendor account (and per vendor for the deployment's key),
 * created on first use and replaced when the account's key changes.
 */
export class VoiceClonerRegistry<K extends string = UpstreamProviderKind> {
  readonly #entries = new Map<string, { version: string; cloner: VoiceCloner }>();

  constructor(
    private readonly options: {
      /** The vendors clones may target, with this deployment's settings. */
      vendors: readonly ConfiguredVendor<K>[];
      timeouts?: Partial<UpstreamTimeouts>;
    },
  ) {}

  cloner(kind: K, account: UpstreamAccount | null): VoiceCloner {
    const key = `${kind}:${account?.id ?? 'deployment'}`;
    const version = account?.version ?? 'deployment';
    const existing = this.#entries.get(key);
    if (existing && existing.version === version) return existing.cloner;
    existing?.cloner.close();
    const { descriptor, settings } = configuredVendor(this.options.vendors, kind);
    const cloner = descriptor.createCloner({
      baseUrl: settings.baseUrl,
      apiKey: account ? account.apiKey : settings.apiKey,
      timeouts: this.options.timeouts,
    });
    this.#entries.set(key, { version, cloner });
    return cloner;
  }

  close(): void {
    for (const entry of this.#entries.values()) entry.cloner.close();
    this.#entries.clear();
  }
}
