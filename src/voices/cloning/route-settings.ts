import type { Kysely, Transaction } from 'kysely';
import type { Environment } from '../../config.ts';
import type { Database, VoiceRoutesTable } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import { type StoredRoute, type StoredVoice, toVoice } from '../voice-store.ts';
import { currentSampleIds } from './checks.ts';
import type { Scope } from './types.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Route settings of a voice: enable and disable (hide without deleting), the default
 * route, and Blocked. Part of the cloning service (`VoiceCloning.routes`).
 */
export class VoiceRouteSettings {
  constructor(private readonly db: Kysely<Database>) {}

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
    return this.#voice(scope.workspaceId, scope.environment, scope.voiceId);
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
    return this.#voice(scope.workspaceId, scope.environment, scope.voiceId);
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
    return this.#voice(scope.workspaceId, scope.environment, scope.voiceId);
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
    return this.#voice(scope.workspaceId, scope.environment, scope.voiceId);
  }

  async #voice(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
    db: Db = this.db,
  ): Promise<StoredVoice> {
    const voice = await db
      .selectFrom('voices')
      .selectAll()
      .where('id', '=', voiceId)
      .where('workspace_id', '=', workspaceId)
      .where('environment', '=', environment)
      .executeTakeFirst();
    if (!voice) throw new ApiError('voice_not_found', `No voice ${voiceId} here.`);
    const routes = await db
      .selectFrom('voice_routes')
      .selectAll()
      .where('voice_id', '=', voiceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return toVoice(voice, routes);
  }

  async #route(scope: Scope, routeId: string): Promise<{ voice: StoredVoice; route: StoredRoute }> {
    const voice = await this.#voice(scope.workspaceId, scope.environment, scope.voiceId);
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
