import type { Kysely } from 'kysely';
import type { OutputFormat } from '../../media/formats.ts';
import type { Environment } from '../app/config.ts';
import { randomBase62 } from '../auth/key-format.ts';
import type {
  Database,
  UpstreamProviderName,
  VoiceRouteProvider,
  VoiceRouteState,
  VoiceRoutesTable,
  VoicesTable,
} from '../db/schema.ts';
import { inScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import type { VoiceCapability } from '../tts/providers/provider.ts';
import { requireWorkspace } from '../workspaces/workspaces.ts';
import { isProviderVoiceId, upstreamModel } from './upstream-models.ts';

/** One provider-and-model pairing of a stored voice. Internal: never shown to clients. */
export interface StoredRoute {
  id: string;
  provider: VoiceRouteProvider;
  model: string;
  providerVoiceId: string;
  providerAccountId: string | null;
  state: VoiceRouteState;
  enabled: boolean;
  /** Stored at clone time; null on imported routes, whose model decides. */
  capabilities: VoiceCapability[] | null;
  outputFormats: OutputFormat[] | null;
  /** Sample ids the provider voice was built from (cloned routes). */
  sampleIds: string[];
  failureSummary: string | null;
  failureDetail: string | null;
  blockedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A workspace voice (imported or cloned) with its routes. */
export interface StoredVoice {
  id: string;
  workspaceId: string;
  environment: Environment;
  name: string;
  nsfw: boolean;
  defaultRouteId: string | null;
  createdAt: string;
  routes: StoredRoute[];
}

export interface ImportVoiceInput {
  workspaceId: string;
  environment: Environment;
  provider: UpstreamProviderName;
  providerVoiceId: string;
  model: string;
  name: string;
  nsfw?: boolean;
  /**
   * Workspace provider account to call the vendor with. Omitted: the workspace's account at
   * that vendor when it has exactly one, else the deployment's credential.
   */
  providerAccountId?: string | undefined;
}

const MAX_NAME_CHARS = 100;

/** States in which a route serves synthesis: Update available is Ready with newer samples. */
export function isServingState(state: VoiceRouteState): boolean {
  return state === 'ready' || state === 'update_available';
}

/**
 * The route synthesis uses: the default route when it is Ready (the default is always
 * enabled), otherwise the oldest Ready enabled route; null when none is Ready.
 */
export function servingRoute(voice: StoredVoice): StoredRoute | null {
  const usable = voice.routes.filter((route) => isServingState(route.state) && route.enabled);
  return usable.find((route) => route.id === voice.defaultRouteId) ?? usable[0] ?? null;
}

/** Stored workspace voices and their routes. */
export class VoiceStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Creates a voice with one Ready route on an existing vendor voice: usable at once, under
   * a new service-owned `voice_id`.
   */
  async importVoice(input: ImportVoiceInput): Promise<StoredVoice> {
    const name = input.name.trim();
    if (name === '' || [...name].length > MAX_NAME_CHARS) {
      throw new ApiError('invalid_request', `The name must be 1 to ${MAX_NAME_CHARS} characters.`);
    }
    if (!upstreamModel(input.provider, input.model)) {
      throw new ApiError('invalid_request', `Unknown ${input.provider} model "${input.model}".`);
    }
    if (!isProviderVoiceId(input.provider, input.providerVoiceId)) {
      throw new ApiError(
        'invalid_request',
        `The provider voice id is not shaped like a ${input.provider} voice id (letters, digits, "_" or "-").`,
      );
    }
    await requireWorkspace(this.db, input.workspaceId);
    const accountId = await this.#accountFor(input);

    const voiceId = `voice_${randomBase62(20)}`;
    const routeId = `vr_${randomBase62(20)}`;
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('voices')
        .values({
          id: voiceId,
          workspace_id: input.workspaceId,
          environment: input.environment,
          name,
          nsfw: input.nsfw ? 1 : 0,
          default_route_id: routeId,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await trx
        .insertInto('voice_routes')
        .values({
          id: routeId,
          voice_id: voiceId,
          provider: input.provider,
          model: input.model,
          provider_voice_id: input.providerVoiceId,
          provider_account_id: accountId,
          state: 'ready',
          enabled: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
    });
    const created = await this.find(input.workspaceId, input.environment, voiceId);
    if (!created) throw new Error(`imported voice ${voiceId} vanished`);
    return created;
  }

  /** The workspace's voices in one environment, oldest first. */
  async list(workspaceId: string, environment: Environment): Promise<StoredVoice[]> {
    const voices = await this.db
      .selectFrom('voices')
      .selectAll()
      .$call(inScope({ workspaceId, environment }))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    if (voices.length === 0) return [];
    const routes = await this.db
      .selectFrom('voice_routes')
      .selectAll()
      .where(
        'voice_id',
        'in',
        voices.map((voice) => voice.id),
      )
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return voices.map((voice) =>
      toVoice(
        voice,
        routes.filter((route) => route.voice_id === voice.id),
      ),
    );
  }

  /** One voice, or null when it does not exist in this workspace and environment. */
  async find(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
  ): Promise<StoredVoice | null> {
    const voice = await this.db
      .selectFrom('voices')
      .selectAll()
      .where('id', '=', voiceId)
      .$call(inScope({ workspaceId, environment }))
      .executeTakeFirst();
    if (!voice) return null;
    const routes = await this.db
      .selectFrom('voice_routes')
      .selectAll()
      .where('voice_id', '=', voiceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return toVoice(voice, routes);
  }

  async #accountFor(input: ImportVoiceInput): Promise<string | null> {
    const accounts = await this.db
      .selectFrom('provider_accounts')
      .select(['id', 'provider'])
      .where('workspace_id', '=', input.workspaceId)
      .where('provider', '=', input.provider)
      .execute();
    if (input.providerAccountId !== undefined) {
      if (!accounts.some((account) => account.id === input.providerAccountId)) {
        throw new ApiError(
          'invalid_request',
          `No ${input.provider} provider account ${input.providerAccountId} in this workspace.`,
        );
      }
      return input.providerAccountId;
    }
    if (accounts.length > 1) {
      throw new ApiError(
        'invalid_request',
        `The workspace has ${accounts.length} ${input.provider} provider accounts; name one.`,
      );
    }
    return accounts[0]?.id ?? null;
  }
}

/** Maps stored rows to a {@link StoredVoice}. */
export function toVoice(voice: VoicesTable, routes: VoiceRoutesTable[]): StoredVoice {
  return {
    id: voice.id,
    workspaceId: voice.workspace_id,
    environment: voice.environment,
    name: voice.name,
    nsfw: voice.nsfw === 1,
    defaultRouteId: voice.default_route_id,
    createdAt: voice.created_at,
    routes: routes.map((route) => ({
      id: route.id,
      provider: route.provider,
      model: route.model,
      providerVoiceId: route.provider_voice_id,
      providerAccountId: route.provider_account_id,
      state: route.state,
      enabled: route.enabled === 1,
      capabilities: parseList(route.capabilities) as VoiceCapability[] | null,
      outputFormats: parseList(route.output_formats) as OutputFormat[] | null,
      sampleIds: parseList(route.sample_ids) ?? [],
      failureSummary: route.failure_summary,
      failureDetail: route.failure_detail,
      blockedBy: route.blocked_by,
      createdAt: route.created_at,
      updatedAt: route.updated_at,
    })),
  };
}

function parseList(text: string | null): string[] | null {
  if (text === null) return null;
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : null;
}
