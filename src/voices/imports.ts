import type { Environment } from '../app/config.ts';
import { ApiError } from '../errors.ts';
import { ProviderError } from '../tts/providers/errors.ts';
import type {
  CatalogQuery,
  CatalogSource,
  VendorCatalog,
  VendorCatalogPage,
} from '../tts/providers/upstream/catalog.ts';
import type { UpstreamTimeouts } from '../tts/providers/upstream/timeouts.ts';
import type { UpstreamProviderKind } from '../tts/providers/upstream-registry.ts';
import type { ConfiguredVendor } from '../tts/providers/vendor-descriptor.ts';
import { configuredVendor } from '../tts/providers/vendors.ts';
import type { ProviderAccounts } from './provider-accounts.ts';
import type { VoiceRouteSettings } from './route-settings.ts';
import { upstreamModel } from './upstream-models.ts';
import type { StoredVoice, VoiceStore } from './voice-store.ts';

/** Builds the catalog client of a vendor for one API key. */
export type VendorCatalogFactory<K extends string = UpstreamProviderKind> = (
  provider: K,
  apiKey: string,
) => VendorCatalog;

/** Catalog clients of the configured vendors, each at its deployment's origin. */
export function vendorCatalogs<K extends string>(
  vendors: readonly ConfiguredVendor<K>[],
  timeouts?: Partial<UpstreamTimeouts>,
): VendorCatalogFactory<K> {
  return (provider, apiKey) => {
    const { descriptor, settings } = configuredVendor(vendors, provider);
    return descriptor.createCatalog({ baseUrl: settings.baseUrl, apiKey, timeouts });
  };
}

export interface ImportRequest {
  workspaceId: string;
  environment: Environment;
  providerAccountId: string;
  source: CatalogSource;
  providerVoiceId: string;
  /** ElevenLabs shared voices only. */
  publicOwnerId?: string | undefined;
  model: string;
  /** Display name; default the vendor's name of the voice. */
  name?: string | undefined;
  nsfw?: boolean | undefined;
  /** Add the route to this existing voice instead of creating one. */
  voiceId?: string | undefined;
}

/**
 * Import from vendor catalogs (spec rule 9): list an account's own voices or the vendor's
 * public library, then adopt one as a Ready route, usable at once.
 */
export class VoiceImports {
  constructor(
    private readonly deps: {
      accounts: ProviderAccounts;
      store: VoiceStore;
      routes: VoiceRouteSettings;
      catalogFor: VendorCatalogFactory;
    },
  ) {}

  /** One page of the account's own voices or of the public library. */
  async list(
    workspaceId: string,
    providerAccountId: string,
    query: CatalogQuery,
    signal: AbortSignal,
  ): Promise<{ provider: UpstreamProviderKind; page: VendorCatalogPage }> {
    const { provider, catalog } = await this.#catalog(workspaceId, providerAccountId);
    try {
      return { provider, page: await catalog.list(query, signal) };
    } catch (error) {
      throw vendorFailure(error);
    } finally {
      catalog.close();
    }
  }

  /** Adopts the vendor voice and stores it as a Ready route (a new voice, or `voiceId`'s). */
  async importVoice(request: ImportRequest, signal: AbortSignal): Promise<StoredVoice> {
    const { provider, catalog } = await this.#catalog(
      request.workspaceId,
      request.providerAccountId,
    );
    try {
      if (!upstreamModel(provider, request.model)) {
        throw new ApiError('invalid_request', `Unknown ${provider} model "${request.model}".`);
      }
      // Conflicts are refused before the vendor is touched (adding a shared voice changes
      // the vendor account).
      const existing =
        request.voiceId === undefined
          ? undefined
          : await this.deps.routes.voice({
              workspaceId: request.workspaceId,
              environment: request.environment,
              voiceId: request.voiceId,
            });
      if (existing) this.deps.routes.assertProviderFree(existing, provider);
      const adopted = await catalog
        .adopt(
          request.source,
          {
            providerVoiceId: request.providerVoiceId,
            publicOwnerId: request.publicOwnerId,
            name: request.name ?? request.providerVoiceId,
          },
          signal,
        )
        .catch((error: unknown) => {
          throw vendorFailure(error);
        });
      if (existing) {
        return await this.deps.routes.attachReadyRoute(existing, {
          provider,
          model: request.model,
          providerVoiceId: adopted.providerVoiceId,
          providerAccountId: request.providerAccountId,
        });
      }
      return await this.deps.store.importVoice({
        workspaceId: request.workspaceId,
        environment: request.environment,
        provider,
        providerVoiceId: adopted.providerVoiceId,
        model: request.model,
        name: request.name ?? adopted.name.slice(0, 100),
        nsfw: request.nsfw ?? false,
        providerAccountId: request.providerAccountId,
      });
    } finally {
      catalog.close();
    }
  }

  async #catalog(workspaceId: string, providerAccountId: string) {
    const account = await this.deps.accounts.get(workspaceId, providerAccountId);
    const credential = await this.deps.accounts.credential(account.id);
    if (!credential) throw new ApiError('not_found', `No provider account ${providerAccountId}.`);
    return {
      provider: account.provider,
      catalog: this.deps.catalogFor(account.provider, credential.apiKey),
    };
  }
}

/**
 * A vendor failure as operators see it: a refused voice or page token is `invalid_request`
 * (the operator can fix the input); the rest keeps the synthesis mapping.
 */
function vendorFailure(error: unknown): unknown {
  if (!(error instanceof ProviderError)) return error;
  if (error.failure === 'rejected') {
    return new ApiError('invalid_request', 'The provider refused this voice or page.', {
      cause: error,
    });
  }
  return error.toApiError();
}
