import type { Kysely } from 'kysely';
import { randomBase62 } from '../auth/key-format.ts';
import type { Environment } from '../config.ts';
import type { Database, UpstreamProviderName } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { StoredRoute, StoredVoice, VoiceStore } from './voice-store.ts';

/**
 * Configuring a voice's routes (operator API): the default route, the Enabled switch and
 * attaching a further route. Rules of the spec: the default route is always enabled and
 * Ready; other routes can be disabled (hidden, not deleted) and enabled again; a provider
 * already attached to a voice cannot be attached again; changing the default never changes
 * `voice_id`.
 */
export class VoiceRouteConfig {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: VoiceStore,
  ) {}

  /** The voice, or 404 `not_found` when it is not in this workspace and environment. */
  async voice(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
  ): Promise<StoredVoice> {
    const voice = await this.store.find(workspaceId, environment, voiceId);
    if (!voice)
      throw new ApiError('not_found', `No voice ${voiceId} in this workspace and environment.`);
    return voice;
  }

  /** Makes a Ready route the default (and enables it: the default is always enabled). */
  async setDefaultRoute(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
    routeId: string,
  ): Promise<StoredVoice> {
    const voice = await this.voice(workspaceId, environment, voiceId);
    const route = routeOf(voice, routeId);
    if (route.state !== 'ready') {
      throw new ApiError(
        'conflict',
        `Only a Ready route can be the default; this one is ${route.state}.`,
      );
    }
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('voice_routes')
        .set({ enabled: 1, updated_at: now })
        .where('id', '=', route.id)
        .execute();
      await trx
        .updateTable('voices')
        .set({ default_route_id: route.id, updated_at: now })
        .where('id', '=', voice.id)
        .execute();
    });
    return this.voice(workspaceId, environment, voiceId);
  }

  /** Turns a route's Enabled switch; the default route cannot be disabled. */
  async setRouteEnabled(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
    routeId: string,
    enabled: boolean,
  ): Promise<StoredVoice> {
    const voice = await this.voice(workspaceId, environment, voiceId);
    const route = routeOf(voice, routeId);
    if (!enabled && voice.defaultRouteId === route.id) {
      throw new ApiError(
        'conflict',
        'The default route is always enabled; make another route the default first.',
      );
    }
    await this.db
      .updateTable('voice_routes')
      .set({ enabled: enabled ? 1 : 0, updated_at: new Date().toISOString() })
      .where('id', '=', route.id)
      .where('voice_id', '=', voice.id)
      .execute();
    return this.voice(workspaceId, environment, voiceId);
  }

  /** 409 `conflict` when `provider` already has a route on the voice. */
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
    const insert = this.db
      .insertInto('voice_routes')
      .values({
        id: `vr_${randomBase62(20)}`,
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
    try {
      await insert;
    } catch (error) {
      // Two imports racing for the same provider: the unique index lets one through.
      const current = await this.voice(voice.workspaceId, voice.environment, voice.id);
      this.assertProviderFree(current, route.provider);
      throw error;
    }
    return this.voice(voice.workspaceId, voice.environment, voice.id);
  }
}

function routeOf(voice: StoredVoice, routeId: string): StoredRoute {
  const route = voice.routes.find((candidate) => candidate.id === routeId);
  if (!route) throw new ApiError('not_found', `The voice has no route ${routeId}.`);
  return route;
}
