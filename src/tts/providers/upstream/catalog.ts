import { UpstreamHttpClient, type UpstreamRequest } from './http-client.ts';
import { failureForStatus, UpstreamProviderError } from './status.ts';
import type { UpstreamTimeouts } from './timeouts.ts';

/** One voice in a vendor's listing, in our words. */
export interface VendorVoice {
  /** The vendor's voice reference (ElevenLabs voice id, Fish Audio model id). */
  providerVoiceId: string;
  name: string;
  description: string | null;
  languages: string[];
  previewUrl: string | null;
  /** ElevenLabs shared voices: the owner, needed to add the voice to an account. */
  publicOwnerId: string | null;
}

/** One page of a listing; `nextPageToken` is opaque to callers, null on the last page. */
export interface VendorCatalogPage {
  voices: VendorVoice[];
  nextPageToken: string | null;
}

/** Which catalog: the account's own voices, or the vendor's public library. */
export type CatalogSource = 'own' | 'public';

export interface CatalogQuery {
  source: CatalogSource;
  search?: string | undefined;
  pageToken?: string | undefined;
  pageSize: number;
}

/** Listing, looking up and adopting vendor voices, one implementation per vendor. */
export interface VendorCatalog {
  list(query: CatalogQuery, signal: AbortSignal): Promise<VendorCatalogPage>;
  /**
   * Makes a voice of `source` usable by the account and returns the reference to
   * synthesize with: an own voice is looked up (it must exist), a public one is added to
   * the account where the vendor requires that.
   */
  adopt(
    source: CatalogSource,
    voice: { providerVoiceId: string; publicOwnerId?: string | undefined; name: string },
    signal: AbortSignal,
  ): Promise<{ providerVoiceId: string; name: string }>;
  /** Closes the client's connections. */
  close(): void;
}

export interface VendorCatalogOptions {
  baseUrl: string;
  apiKey: string;
  timeouts?: Partial<UpstreamTimeouts> | undefined;
}

/** JSON over one short-lived client; a non-2xx answer is an {@link UpstreamProviderError}. */
export class JsonUpstream {
  readonly #client: UpstreamHttpClient;

  constructor(
    readonly provider: string,
    options: VendorCatalogOptions,
  ) {
    this.#client = new UpstreamHttpClient({ baseUrl: options.baseUrl, timeouts: options.timeouts });
  }

  async call(request: UpstreamRequest, signal: AbortSignal): Promise<unknown> {
    let response: Awaited<ReturnType<UpstreamHttpClient['send']>>;
    try {
      response = await this.#client.send(request, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new UpstreamProviderError('unavailable', `${this.provider} catalog request failed`, {
        provider: this.provider,
        cause: error,
      });
    }
    const text = await response.text(4 * 1024 * 1024).catch((error: unknown) => {
      throw new UpstreamProviderError('unavailable', `${this.provider} catalog answer broken`, {
        provider: this.provider,
        cause: error,
      });
    });
    if (response.status < 200 || response.status > 299) {
      throw new UpstreamProviderError(
        failureForStatus(response.status),
        `${this.provider} catalog answered HTTP ${response.status}`,
        { provider: this.provider, status: response.status },
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new UpstreamProviderError('unavailable', `${this.provider} catalog answer not JSON`, {
        provider: this.provider,
        status: response.status,
        cause: error,
      });
    }
  }

  close(): void {
    this.#client.close();
  }
}

/** A string field of a vendor object, or null. */
export function stringField(value: unknown, name: string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const field = (value as Record<string, unknown>)[name];
  return typeof field === 'string' ? field : null;
}

/** An array field of a vendor object, or []. */
export function arrayField(value: unknown, name: string): unknown[] {
  if (typeof value !== 'object' || value === null) return [];
  const field = (value as Record<string, unknown>)[name];
  return Array.isArray(field) ? field : [];
}

/** A vendor answer that does not have the documented shape. */
export function malformed(provider: string, what: string): UpstreamProviderError {
  return new UpstreamProviderError('unavailable', `${provider} ${what} has an unexpected shape`, {
    provider,
  });
}
