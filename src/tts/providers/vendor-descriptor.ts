import type { z } from 'zod';
import type { VoiceCloner } from './cloning/cloner.ts';
import type { TtsProvider } from './provider.ts';
import type { VendorCatalog } from './upstream/catalog.ts';
import type { ConcurrencyLimiter } from './upstream/concurrency-limiter.ts';
import type { UpstreamLogger } from './upstream/logger.ts';
import type { UpstreamModelInfo } from './upstream/model-info.ts';
import type { UpstreamTimeouts } from './upstream/timeouts.ts';

/** What a vendor's environment variables say: where it lives, the deployment key, the price. */
export interface VendorSettings {
  readonly baseUrl: string;
  /** Deployment-wide key, used by routes without a workspace provider account. */
  readonly apiKey?: string | undefined;
  /** Price of this vendor's routes (provider cost, passed through), credits per 1,000 characters. */
  readonly creditsPer1kChars: number;
}

/** What the synthesis adapter of one account is built with. */
export interface VendorProviderOptions {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  /** The account's bound on concurrent upstream requests. */
  readonly limiter: ConcurrencyLimiter;
  readonly timeouts?: Partial<UpstreamTimeouts>;
  readonly logger?: UpstreamLogger;
}

/** What a short-lived vendor client (cloning, catalog) is built with. */
export interface VendorClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly timeouts?: Partial<UpstreamTimeouts> | undefined;
}

/**
 * Everything the service knows about one upstream speech vendor, in the vendor's own
 * folder. The wiring (synthesis registry, cloning registry, catalog import, pricing,
 * configuration, route checks) iterates the registered descriptors (src/tts/providers/vendors.ts)
 * and never names a vendor.
 */
export interface VendorDescriptor<
  K extends string = string,
  S extends z.ZodRawShape = z.ZodRawShape,
> {
  /** The provider name stored on routes and provider accounts (`elevenlabs`). */
  readonly kind: K;
  /** The vendor's environment variables, part of `configSchema` (src/app/config.ts). */
  readonly configShape: S;
  /** The vendor's settings read from a loaded configuration (which holds `configShape`). */
  settings(config: Readonly<Record<string, unknown>>): VendorSettings;
  /** The synthesis adapter of one account (or of the deployment key). */
  createProvider(options: VendorProviderOptions): TtsProvider & { close(): void };
  /** Voice cloning at one account. */
  createCloner(options: VendorClientOptions): VoiceCloner;
  /** Listing and adopting the vendor's voices with one account's key. */
  createCatalog(options: VendorClientOptions & { readonly apiKey: string }): VendorCatalog;
  /** The model a route may name, or undefined when routes cannot use it. */
  findModel(model: string): UpstreamModelInfo | undefined;
  /** True when `id` has the shape of a voice reference at this vendor. */
  isVoiceId(id: string): boolean;
  /** The model a clone lands on unless the operator names one (spec rule 6). */
  readonly recommendedCloneModel: string;
  /** Whether a cloned voice takes more recordings later (a refresh sends only new ones). */
  readonly appendsRecordings: boolean;
}

/**
 * A descriptor whose `settings` reads its own environment variables with their parsed
 * types. configSchema holds every registered `configShape`, so a loaded configuration
 * carries these keys with these types.
 */
export function defineVendor<const K extends string, S extends z.ZodRawShape>(
  descriptor: Omit<VendorDescriptor<K, S>, 'settings'> & {
    settings(config: z.output<z.ZodObject<S>>): VendorSettings;
  },
): VendorDescriptor<K, S> {
  return {
    ...descriptor,
    settings: (config) => descriptor.settings(config as z.output<z.ZodObject<S>>),
  };
}

/** A vendor with this deployment's settings for it. */
export interface ConfiguredVendor<K extends string = string> {
  readonly descriptor: VendorDescriptor<K>;
  readonly settings: VendorSettings;
}
