import type { TtsProvider } from './provider.ts';
import { ConcurrencyLimiter } from './upstream/concurrency-limiter.ts';
import type { UpstreamLogger } from './upstream/logger.ts';
import type { UpstreamTimeouts } from './upstream/timeouts.ts';
import type { ConfiguredVendor } from './vendor-descriptor.ts';
import { configuredVendor, VENDOR_KINDS, type VendorKind } from './vendors.ts';
import type { WaitQueueOptions } from './wait-queue.ts';

/** Upstream vendors a route can name: the registered ones (src/tts/providers/vendors.ts). */
export type UpstreamProviderKind = VendorKind;

export const UPSTREAM_PROVIDERS: readonly UpstreamProviderKind[] = VENDOR_KINDS;

export interface UpstreamRegistryOptions<K extends string = UpstreamProviderKind> {
  /** The vendors routes may name, with this deployment's settings. */
  readonly vendors: readonly ConfiguredVendor<K>[];
  /** Most concurrent upstream requests per provider account (queued beyond). */
  readonly maxConcurrentPerAccount: number;
  /** Bounds of each account's queue (length, wait deadline); default unbounded. */
  readonly queue?: WaitQueueOptions;
  readonly timeouts?: Partial<UpstreamTimeouts>;
  readonly logger?: UpstreamLogger;
}

/** A workspace's credential at a vendor, as the registry needs it. */
export interface UpstreamAccount {
  readonly id: string;
  /** Changes whenever the key changes (the row's `updated_at`), so a new key takes effect. */
  readonly version: string;
  readonly apiKey: string;
}

interface Entry {
  version: string;
  provider: TtsProvider & { close(): void };
}

/**
 * One adapter instance per provider account (and one per vendor for the deployment's own
 * key), so each account has its own keep-alive connections and its own bound on
 * concurrent upstream requests. Instances are created on first use.
 */
export class UpstreamProviderRegistry<K extends string = UpstreamProviderKind> {
  readonly #options: UpstreamRegistryOptions<K>;
  readonly #entries = new Map<string, Entry>();

  constructor(options: UpstreamRegistryOptions<K>) {
    this.#options = options;
  }

  /** The adapter for `kind` on `account`, or on the deployment's key when `account` is null. */
  provider(kind: K, account: UpstreamAccount | null): TtsProvider {
    const key = `${kind}:${account?.id ?? 'deployment'}`;
    const version = account?.version ?? 'deployment';
    const existing = this.#entries.get(key);
    if (existing && existing.version === version) return existing.provider;
    // A changed key gets a new instance. The old one is dropped, not closed: its requests in
    // flight finish, and its kept-alive connections close on their own once idle.
    const provider = this.#create(kind, account);
    this.#entries.set(key, { version, provider });
    return provider;
  }

  close(): void {
    for (const entry of this.#entries.values()) entry.provider.close();
    this.#entries.clear();
  }

  #create(kind: K, account: UpstreamAccount | null): Entry['provider'] {
    const { descriptor, settings } = configuredVendor(this.#options.vendors, kind);
    return descriptor.createProvider({
      baseUrl: settings.baseUrl,
      apiKey: account ? account.apiKey : settings.apiKey,
      limiter: new ConcurrencyLimiter(this.#options.maxConcurrentPerAccount, this.#options.queue),
      ...(this.#options.timeouts ? { timeouts: this.#options.timeouts } : {}),
      ...(this.#options.logger ? { logger: this.#options.logger } : {}),
    });
  }
}
