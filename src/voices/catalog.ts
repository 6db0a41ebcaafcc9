import type { OutputFormat } from '../../media/formats.ts';
import type { Environment } from '../app/config.ts';
import type { RoutePricing } from '../billing/pricing.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { withAlignmentCapabilities } from '../tts/alignment/capability.ts';
import { NATIVE_VOICES, type NativeVoice } from '../tts/providers/native/index.ts';
import type { TtsProvider, VoiceCapability } from '../tts/providers/provider.ts';
import { UpstreamProviderError } from '../tts/providers/upstream/status.ts';
import type {
  UpstreamAccount,
  UpstreamProviderKind,
  UpstreamProviderRegistry,
} from '../tts/providers/upstream-registry.ts';
import type { ProviderAccounts } from './provider-accounts.ts';
import { type RouteProfile, routeProfile } from './route-profile.ts';
import {
  isServingState,
  type StoredRoute,
  type StoredVoice,
  servingRoute,
  type VoiceStore,
} from './voice-store.ts';

/** The route a voice is synthesized through. Internal: never shown to clients. */
export interface ResolvedRoute {
  /** Stable internal name for the ledger, e.g. `native:en-us+f3`. */
  id: string;
  /** The voice route behind it, as the operator API names it; absent on built-in voices. */
  voiceRoute?: { readonly id: string; readonly provider: string; readonly model: string };
  provider: TtsProvider;
  providerVoiceId: string;
  model?: string;
  pricing: RoutePricing;
  /** What this route delivers; a request fails over only to routes that can serve it. */
  profile: RouteProfile;
}

/** A voice as the catalog knows it: the public entry and the routes behind it. */
export interface CatalogVoice {
  id: string;
  name: string;
  nsfw: boolean;
  outputFormats: readonly OutputFormat[];
  capabilities: readonly VoiceCapability[];
  /** The route a request starts on (the default route); the ledger row names it first. */
  route: ResolvedRoute;
  /**
   * The failover set, `route` first: further Ready enabled routes tried in order when the
   * one before fails retryably before any audio and can serve the request's format
   * (src/tts/failover.ts).
   */
  routes: readonly ResolvedRoute[];
}

/** Public catalog entry, exactly the spec's fields. */
export interface VoiceEntry {
  id: string;
  name: string;
  output_formats: OutputFormat[];
  capabilities: VoiceCapability[];
  nsfw: boolean;
}

export function toVoiceEntry(voice: Omit<CatalogVoice, 'route' | 'routes'>): VoiceEntry {
  return {
    id: voice.id,
    name: voice.name,
    output_formats: [...voice.outputFormats],
    capabilities: [...voice.capabilities],
    nsfw: voice.nsfw,
  };
}

/** A family of built-in voices served by one native engine. */
export interface NativeVoiceFamily {
  provider: TtsProvider;
  pricing: RoutePricing;
  voices: readonly NativeVoice[];
}

export interface VoiceCatalogOptions {
  nativeProvider: TtsProvider;
  nativePricing: RoutePricing;
  /** Offer the espeak-ng voices (default true). */
  liteVoices?: boolean;
  /** The neural voices, listed after the lite ones; absent when not installed or off. */
  neural?: NativeVoiceFamily;
  store: VoiceStore;
  accounts: ProviderAccounts;
  upstream: UpstreamProviderRegistry;
  upstreamPricing: { readonly [K in UpstreamProviderKind]: RoutePricing };
  logger: Logger;
}

/**
 * The voices a workspace may use in one environment: the built-in native voices (enabled
 * for every workspace with the `tts` product; the route check has already enforced it)
 * followed by the workspace's own voices that have a Ready enabled route. Provider, model
 * and provider voice reference stay inside the route; the public entry never carries them.
 */
export class VoiceCatalog {
  private readonly native: CatalogVoice[];
  private readonly nativeById: Map<string, CatalogVoice>;

  constructor(private readonly options: VoiceCatalogOptions) {
    const families: NativeVoiceFamily[] = [
      ...(options.liteVoices === false
        ? []
        : [
            {
              provider: options.nativeProvider,
              pricing: options.nativePricing,
              voices: NATIVE_VOICES,
            },
          ]),
      ...(options.neural ? [options.neural] : []),
    ];
    this.native = families
      .flatMap((family) =>
        family.voices.map((voice: NativeVoice) => {
          // Whether a native voice can align depends on how its engine runs.
          const capabilities = withAlignmentCapabilities(voice.capabilities, family.provider);
          return {
            id: voice.id,
            name: voice.name,
            nsfw: voice.nsfw,
            outputFormats: voice.outputFormats,
            capabilities,
            route: {
              id: `${family.provider.name}:${voice.providerVoiceId}`,
              provider: family.provider,
              providerVoiceId: voice.providerVoiceId,
              pricing: family.pricing,
              profile: { capabilities, outputFormats: voice.outputFormats },
            },
          };
        }),
      )
      .map((voice) => ({ ...voice, routes: [voice.route] }));
    this.nativeById = new Map(this.native.map((voice) => [voice.id, voice]));
  }

  async list(workspaceId: string, environment: Environment): Promise<VoiceEntry[]> {
    const stored = await this.options.store.list(workspaceId, environment);
    const own = stored.flatMap((voice) => {
      const published = publish(voice);
      return published ? [toVoiceEntry(published.voice)] : [];
    });
    return [...this.native.map(toVoiceEntry), ...own];
  }

  /** The built-in voice with this id, if there is one (every workspace has them all). */
  builtIn(voiceId: string): CatalogVoice | undefined {
    return this.nativeById.get(voiceId);
  }

  /**
   * The voice, or null when it does not exist or is not enabled for the caller. With
   * `routeId` (one route of a workspace voice, as the dashboard Playground chooses it) the
   * voice is served by that route alone, with that route's formats and capabilities, and
   * no failover: 404 `not_found` when the voice has no such route, 409 `conflict` when the
   * route does not serve (not Ready, or on a model this service does not know).
   */
  async resolve(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
    routeId?: string,
  ): Promise<CatalogVoice | null> {
    const native = this.nativeById.get(voiceId);
    if (native) {
      if (routeId !== undefined) throw noSuchRoute(voiceId, routeId);
      return native;
    }
    if (!voiceId.startsWith('voice_')) return null;
    const stored = await this.options.store.find(workspaceId, environment, voiceId);
    if (!stored) return null;
    if (routeId !== undefined) return this.#onRoute(stored, routeId);
    const published = publish(stored);
    if (!published) return null;
    const routes = await Promise.all(published.routes.map((route) => this.#resolveRoute(route)));
    return { ...published.voice, route: routes[0]!, routes };
  }

  async #onRoute(voice: StoredVoice, routeId: string): Promise<CatalogVoice> {
    const stored = voice.routes.find((route) => route.id === routeId);
    if (!stored) throw noSuchRoute(voice.id, routeId);
    const profile = routeProfile(stored);
    if (!isServingState(stored.state)) {
      throw new ApiError('conflict', `Route ${routeId} does not serve: it is ${stored.state}.`);
    }
    if (!profile) {
      throw new ApiError('conflict', `Route ${routeId} is on a model this service cannot use.`);
    }
    const route = await this.#resolveRoute(stored);
    return {
      id: voice.id,
      name: voice.name,
      nsfw: voice.nsfw,
      outputFormats: profile.outputFormats,
      capabilities: profile.capabilities,
      route,
      routes: [route],
    };
  }

  async #resolveRoute(route: StoredRoute): Promise<ResolvedRoute> {
    // Only routes with a profile reach here (publish() and #onRoute() check it).
    const profile = routeProfile(route)!;
    if (route.provider === 'native') {
      return {
        id: `native:${route.model}:${route.id}`,
        voiceRoute: { id: route.id, provider: route.provider, model: route.model },
        provider: this.options.nativeProvider,
        providerVoiceId: route.providerVoiceId,
        pricing: this.options.nativePricing,
        profile,
      };
    }
    return {
      id: `${route.provider}:${route.model}:${route.id}`,
      voiceRoute: { id: route.id, provider: route.provider, model: route.model },
      provider: await this.#provider(route, route.provider),
      providerVoiceId: route.providerVoiceId,
      model: route.model,
      pricing: this.options.upstreamPricing[route.provider],
      profile,
    };
  }

  async #provider(route: StoredRoute, kind: UpstreamProviderKind): Promise<TtsProvider> {
    if (route.providerAccountId === null) return this.options.upstream.provider(kind, null);
    let account: UpstreamAccount | null;
    try {
      account = await this.options.accounts.credential(route.providerAccountId);
    } catch (error) {
      this.options.logger.error(
        { route: route.id, provider_account: route.providerAccountId, err: error },
        'provider account key cannot be opened; check SECRETS_KEY',
      );
      account = null;
    }
    if (!account) return missingCredential(kind);
    return this.options.upstream.provider(kind, account);
  }
}

/**
 * What clients are offered for a stored voice (its default route's formats and
 * capabilities), or null when no route serves it; no provider is built.
 */
export function offeredBy(
  voice: StoredVoice,
): { outputFormats: readonly OutputFormat[]; capabilities: readonly VoiceCapability[] } | null {
  const published = publish(voice);
  return published
    ? { outputFormats: published.voice.outputFormats, capabilities: published.voice.capabilities }
    : null;
}

/**
 * The public face of a stored voice and its failover set (the serving route first, then
 * the other Ready enabled routes on known models, oldest first), or null when no route can
 * serve it. Formats and capabilities are the serving route's: the catalog describes the
 * variant that speaks. A request fails over only to a route that delivers its format, and
 * a route without `voice_tags` strips the request's tags (src/tts/failover.ts).
 */
function publish(
  voice: StoredVoice,
): { voice: Omit<CatalogVoice, 'route' | 'routes'>; routes: StoredRoute[] } | null {
  const first = servingRoute(voice);
  const profile = first && routeProfile(first);
  if (!first || !profile) return null;
  const routes = [
    first,
    ...voice.routes.filter(
      (route) =>
        route.id !== first.id &&
        route.state === 'ready' &&
        route.enabled &&
        routeProfile(route) !== undefined,
    ),
  ];
  return {
    voice: {
      id: voice.id,
      name: voice.name,
      nsfw: voice.nsfw,
      outputFormats: profile.outputFormats,
      capabilities: profile.capabilities,
    },
    routes,
  };
}

function noSuchRoute(voiceId: string, routeId: string): ApiError {
  return new ApiError('not_found', `Voice ${voiceId} has no route ${routeId}.`);
}

/** A provider whose credential cannot be used: every request is `provider_auth_missing`. */
function missingCredential(kind: UpstreamProviderKind): TtsProvider {
  return {
    name: kind,
    // biome-ignore lint/correctness/useYield: fails before producing audio.
    async *synthesize() {
      throw new UpstreamProviderError('auth_missing', `the ${kind} provider account is unusable`, {
        provider: kind,
      });
    },
  };
}
