import { z } from 'zod';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import { offeredBy } from '../../voices/catalog.ts';
import type { Scope } from '../../voices/cloning/types.ts';
import type { VoiceImports } from '../../voices/imports.ts';
import type { VoiceRouteSettings } from '../../voices/route-settings.ts';
import type { StoredVoice, VoiceStore } from '../../voices/voice-store.ts';
import { VOICE_MANAGER_ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { EVERY_ROLE, operatorRoute } from '../route.ts';

/** The voice a route's `:voiceId` names, in the member's workspace and the request's environment. */
export function scopeOf(member: OperatorPrincipal, request: HttpRequest): Scope {
  return {
    workspaceId: member.workspaceId,
    environment: request.environment,
    voiceId: request.params.voiceId ?? '',
  };
}

/** A voice as operators see it: the routes behind it, and what clients are offered. */
export function voiceView(voice: StoredVoice) {
  const offered = offeredBy(voice);
  return {
    id: voice.id,
    name: voice.name,
    nsfw: voice.nsfw,
    environment: voice.environment,
    created_at: voice.createdAt,
    default_route_id: voice.defaultRouteId,
    /** Null when no Ready enabled route serves the voice (absent from GET /v1/voices). */
    offered: offered
      ? { output_formats: [...offered.outputFormats], capabilities: [...offered.capabilities] }
      : null,
    routes: voice.routes.map((route) => ({
      id: route.id,
      provider: route.provider,
      model: route.model,
      provider_voice_id: route.providerVoiceId,
      provider_account_id: route.providerAccountId,
      state: route.state,
      /** Why the route Failed or was Blocked; null otherwise. */
      failure_summary: route.failureSummary,
      blocked_by: route.blockedBy,
      enabled: route.enabled,
      is_default: route.id === voice.defaultRouteId,
      created_at: route.createdAt,
    })),
  };
}

const defaultRouteSchema = z.strictObject({ route_id: z.string().min(1).max(100) });
const enabledSchema = z.strictObject({ enabled: z.boolean() });

const importSchema = z.strictObject({
  provider_account_id: z.string().min(1).max(100),
  source: z.enum(['own', 'public']),
  provider_voice_id: z.string().min(1).max(100),
  public_owner_id: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(100).optional(),
  nsfw: z.boolean().optional(),
  /** Attach the route to this voice instead of creating a new one. */
  voice_id: z.string().min(1).max(100).optional(),
  permission_confirmed: z.literal(true, {
    error: 'confirm that you have the speaker’s permission (permission_confirmed: true)',
  }),
});

const catalogQuerySchema = z.strictObject({
  source: z.enum(['own', 'public']),
  search: z.string().trim().max(100).optional(),
  page_token: z.string().min(1).max(500).optional(),
  page_size: z.coerce.number().int().min(1).max(100).default(30),
});

/** Voices of the listener's environment: browse (every role), configure and import (Owner, Admin). */
export function voiceRoutes(
  guard: OperatorGuard,
  deps: {
    store: VoiceStore;
    routes: VoiceRouteSettings;
    imports: VoiceImports;
  },
): AnyRoute[] {
  const { store, routes, imports } = deps;
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/voices',
      operationId: 'operatorListVoices',
      summary: 'The workspace’s voices in this environment, with their routes.',
      roles: EVERY_ROLE,
      handle: async ({ member, request }) => {
        const voices = await store.list(member.workspaceId, request.environment);
        return {
          status: 200,
          body: { voices: voices.map(voiceView) },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/voices/:voiceId',
      operationId: 'operatorGetVoice',
      summary: 'One voice with its routes.',
      roles: EVERY_ROLE,
      errors: ['voice_not_found'],
      handle: async ({ member, request }) => {
        const voice = await routes.voice(scopeOf(member, request));
        return { status: 200, body: { voice: voiceView(voice) } };
      },
    }),
    operatorRoute(guard, {
      method: 'PUT',
      path: '/voices/:voiceId/default-route',
      operationId: 'operatorSetDefaultRoute',
      summary: 'Makes a Ready route the default; the voice id does not change.',
      roles: VOICE_MANAGER_ROLES,
      body: defaultRouteSchema,
      errors: ['voice_not_found', 'not_found', 'conflict'],
      handle: async ({ member, request, body }) => {
        const voice = await routes.setDefaultRoute(scopeOf(member, request), body.route_id);
        return { status: 200, body: { voice: voiceView(voice) } };
      },
    }),
    operatorRoute(guard, {
      method: 'PATCH',
      path: '/voices/:voiceId/routes/:routeId',
      operationId: 'operatorSetRouteEnabled',
      summary: 'Enables or disables (hides, keeps) a route other than the default.',
      roles: VOICE_MANAGER_ROLES,
      body: enabledSchema,
      errors: ['voice_not_found', 'not_found', 'conflict'],
      handle: async ({ member, request, body }) => {
        const voice = await routes.setRouteEnabled(
          scopeOf(member, request),
          request.params.routeId ?? '',
          body.enabled,
        );
        return { status: 200, body: { voice: voiceView(voice) } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/provider-accounts/:accountId/catalog',
      operationId: 'operatorBrowseVendorCatalog',
      summary: 'Searches the account’s own voices or the vendor’s public library, page by page.',
      roles: VOICE_MANAGER_ROLES,
      query: catalogQuerySchema,
      errors: ['not_found', 'provider_error', 'provider_unavailable'],
      handle: async ({ member, request, query }) => {
        const { provider, page } = await imports.list(
          member.workspaceId,
          request.params.accountId ?? '',
          {
            source: query.source,
            search: query.search || undefined,
            pageToken: query.page_token,
            pageSize: query.page_size,
          },
          request.signal,
        );
        return {
          status: 200,
          body: {
            provider,
            voices: page.voices.map((voice) => ({
              provider_voice_id: voice.providerVoiceId,
              name: voice.name,
              description: voice.description,
              languages: voice.languages,
              preview_url: voice.previewUrl,
              public_owner_id: voice.publicOwnerId,
            })),
            next_page_token: page.nextPageToken,
          },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices/import',
      operationId: 'operatorImportVoice',
      summary: 'Imports a vendor voice as a Ready route: a new voice, or a route of voice_id.',
      roles: VOICE_MANAGER_ROLES,
      body: importSchema,
      errors: [
        'not_found',
        'voice_not_found',
        'conflict',
        'provider_error',
        'provider_unavailable',
      ],
      handle: async ({ member, request, body }) => {
        const voice = await imports.importVoice(
          {
            workspaceId: member.workspaceId,
            environment: request.environment,
            providerAccountId: body.provider_account_id,
            source: body.source,
            providerVoiceId: body.provider_voice_id,
            publicOwnerId: body.public_owner_id,
            model: body.model,
            name: body.name,
            nsfw: body.nsfw,
            voiceId: body.voice_id,
          },
          request.signal,
        );
        return {
          status: body.voice_id === undefined ? 201 : 200,
          body: { voice: voiceView(voice) },
        };
      },
    }),
  ];
}
