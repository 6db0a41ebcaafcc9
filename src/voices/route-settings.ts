import type { Kysely, Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../app/config.ts';
import type { Database, UpstreamProviderName, VoiceRoutesTable } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { currentSampleIds } from './cloning/checks.ts';
import type { Scope } from './cloning/types.ts';
import { type StoredRoute, type StoredVoice, VoiceStore } from './voice-store.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The voice `voiceId` of a workspace and environment with its routes, oldest route first;
 * 404 `voice_not_found` for a voice of another workspace or environment, as for synthesis.
 */
export async function loadVoice(
  db: Db,
  workspaceId: string,
  environment: Environment,
  voiceId: string,
): Promise<StoredVoice> {
  // A transaction is a Kysely too: the store's query runs inside it when given one.
  const voice = await new VoiceStore(db).find(workspaceId, environment, voiceId);
  if (!voice) throw new ApiError('voice_not_found', `No voice ${voiceId} here.`);
  return voice;
}

/**
 * Route settings of a voice, whoever drives them (operator API, operator tool, imports):
 * enable and disable (hide without deleting), the default route, Blocked, and attaching a
 * Ready route of an imported vendor voice. Rules: the default route is Ready (or Update
 * available, which still serves) and always enabled; changing it never changes `voice_id`;
 * a provider is attached to a voice once; a Blocked route serves nothing until unblocked.
 */
export class VoiceRouteSettings {
  constructor(private readonly db: Kysely<Database>) {}

  /** The voice with its routes, or 404 `voice_not_found`. */
  voice(scope: Scope): Promise<StoredVoice> {
    return loadVoice(this.db, scope.workspaceId, scope.environment, scope.voiceId);
  }

  /** Enables or disables (hides, keeps) a route; the default route cannot be disabled. */
  async setRouteEnabled(scope: Scope, routeId: string, enabled: boolean): Promise<StoredVoice> {
    const { voice, route } = await this.#route(scope, routeId);
    if (!enabled && voice.defaultRouteId === route.id) {
      throw new ApiError(
        'conflict',
        'The default route is always enabled; choose another default first.',
      );
    }
    await this.#updateRoute(route.id, { enabled: enabled ? 1 : 0 });
    return this.voice(scope);
  }

  /**
   * Makes a Ready route the default (and enables it). The voice keeps its `voice_id`.
   */
  async setDefaultRoute(scope: Scope, routeId: string): Promise<StoredVoice> {
    const { route } = await this.#route(scope, routeId);
    if (route.state !== 'ready' && route.state !== 'update_available') {
      throw new ApiError(
        'conflict',
        `Only a Ready route can be the default; this one is ${route.state}.`,
      );
    }
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('voice_routes')
        .set({ enabled: 1, updated_at: new Date().toISOString() })
        .where('id', '=', route.id)
        .execute();
      await trx
        .updateTable('voices')
        .set({ default_route_id: route.id, updated_at: new Date().toISOString() })
        .where('id', '=', scope.voiceId)
        .execute();
    });
    return this.voice(scope);
  }

  /**
   * Blocks a route: it stops serving and cannot be cloned until unblocked. Set by an
   * operator (withdrawn consent, misuse) or by the provider (the vendor withheld the voice).
   */
  async blockRoute(
    scope: Scope,
    routeId: string,
    reason: string,
    by: 'operator' | 'provider' = 'operator',
  ): Promise<StoredVoice> {
    const { route } = await this.#route(scope, routeId);
    if (route.state === 'cloning') {
      throw new ApiError('conflict', 'The route is cloning; block it once the attempt finished.');
    }
    await this.#updateRoute(route.id, {
      state: 'blocked',
      blocked_by: by,
      failure_summary: reason.slice(0, 500),
    });
    return this.voice(scope);
  }

  /** Lifts a block: Ready (or Update available) with a provider voice, else Failed. */
  async unblockRoute(scope: Scope, routeId: string): Promise<StoredVoice> {
    const { route } = await this.#route(scope, routeId);
    if (route.state !== 'blocked') throw new ApiError('conflict', 'The route is not blocked.');
    const sampleIds = await currentSampleIds(this.db, scope.voiceId);
    const state =
      route.providerVoiceId === ''
        ? 'failed'
        : sampleIds.every((id) => route.sampleIds.includes(id))
          ? 'ready'
          : 'update_available';
    await this.#updateRoute(route.id, { state, blocked_by: null, failure_summary: null });
    return this.voice(scope);
  }

  /** 409 `conflict` when `provider` already has a route on the voice (spec rule 7). */
  assertProviderFree(voice: StoredVoice, provider: UpstreamProviderName): void {
    if (voice.routes.some((route) => route.provider === provider)) {
      throw new ApiError(
        'conflict',
        `The voice already has a ${provider} route; a provider is attached once.`,
      );
    }
  }

  /** Attaches a Ready route on an existing vendor voice (import into an existing voice). */
  async attachReadyRoute(
    voice: StoredVoice,
    route: {
      provider: UpstreamProviderName;
      model: string;
      providerVoiceId: string;
      providerAccountId: string;
    },
  ): Promise<StoredVoice> {
    this.assertProviderFree(voice, route.provider);
    const now = new Date().toISOString();
    const scope = {
      workspaceId: voice.workspaceId,
      environment: voice.environment,
      voiceId: voice.id,
    };
    try {
      await this.db
        .insertInto('voice_routes')
        .values({
          // Time-ordered like cloned routes: a voice lists its routes in the order attached.
          id: `vr_${uuidv7()}`,
          voice_id: voice.id,
          provider: route.provider,
          model: route.model,
          provider_voice_id: route.providerVoiceId,
          provider_account_id: route.providerAccountId,
          state: 'ready',
          enabled: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
    } catch (error) {
      // Two imports racing for the same provider: the unique index lets one through.
      this.assertProviderFree(await this.voice(scope), route.provider);
      throw error;
    }
    return this.voice(scope);
  }

  async #route(scope: Scope, routeId: string): Promise<{ voice: StoredVoice; route: StoredRoute }> {
    const voice = await this.voice(scope);
    const route = voice.routes.find((r) => r.id === routeId);
    if (!route) throw new ApiError('not_found', `No route ${routeId} on voice ${voice.id}.`);
    return { voice, route };
  }

  async #updateRoute(
    routeId: string,
    values: Partial<Omit<VoiceRoutesTable, 'id' | 'voice_id'>>,
  ): Promise<void> {
    await this.db
      .updateTable('voice_routes')
      .set({ ...values, updated_at: new Date().toISOString() })
      .where('id', '=', routeId)
      .execute();
  }
}
