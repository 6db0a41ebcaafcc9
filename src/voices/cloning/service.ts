import type { Kysely, Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { randomBase62 } from '../../auth/key-format.ts';
import type { Environment } from '../../config.ts';
import type { CloneAttemptOperation, Database, VoiceRoutesTable } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import { requireWorkspace } from '../../workspaces/workspaces.ts';
import { modelProfile } from '../route-profile.ts';
import { loadVoice, VoiceRouteSettings } from '../route-settings.ts';
import { type StoredRoute, type StoredVoice, toVoice } from '../voice-store.ts';
import {
  accountFor,
  checkTargets,
  currentSampleIds,
  failUnqueued,
  type PreparedSample,
  prepare,
  RECOMMENDED_MODELS,
  requirePermission,
  voiceRow,
} from './checks.ts';
import { appendsRecordings, toAttempt, toSample } from './rows.ts';
import { type SampleStore, sampleObjectKey } from './sample-store.ts';
import type {
  CloneJobQueue,
  CloneTarget,
  SampleInput,
  Scope,
  VoiceDetails,
  VoiceSample,
} from './types.ts';

export { RECOMMENDED_MODELS } from './checks.ts';

const MAX_NAME_CHARS = 100;

/** Who acts and what they confirmed, for samples and History. */
export interface Actor {
  /** Operator identity recorded with samples and attempts (email or name). */
  actor: string;
}

/**
 * Voice cloning as a domain service, for the operator tool and the operator API: samples
 * (validated, stored per workspace), routes and their state machine, clone attempts queued
 * as jobs. Every method is scoped by workspace and environment; a voice of another scope is
 * `voice_not_found`.
 *
 * States: a new route starts Cloning; the job moves it to Ready or Failed; Try again puts
 * the failed group back to Cloning; a new recording turns Ready into Update available; an
 * operator (or a provider, through the job) can Block a route, which stops it serving and
 * cloning until unblocked.
 */
export class VoiceCloning {
  /** Enable, disable, default and Blocked of the voice's routes. */
  readonly routes: VoiceRouteSettings;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly samples: SampleStore,
    private readonly queue: CloneJobQueue,
  ) {
    this.routes = new VoiceRouteSettings(db);
  }

  /**
   * Creates a voice from recordings and submits it to `targets`: the voice id exists from
   * this first submission on. Needs at least one recording, each with an exact transcript,
   * and the speaker's permission confirmed.
   */
  async createAndClone(
    input: {
      workspaceId: string;
      environment: Environment;
      name: string;
      nsfw?: boolean;
      samples: SampleInput[];
      permissionConfirmed: boolean;
      targets: CloneTarget[];
    } & Actor,
  ): Promise<VoiceDetails> {
    const name = input.name.trim();
    if (name === '' || [...name].length > MAX_NAME_CHARS) {
      throw new ApiError('invalid_request', `The name must be 1 to ${MAX_NAME_CHARS} characters.`);
    }
    if (input.samples.length === 0) {
      throw new ApiError('invalid_request', 'Cloning needs at least one recording.');
    }
    requirePermission(input.permissionConfirmed);
    if (input.targets.length === 0) {
      throw new ApiError('invalid_request', 'Choose at least one provider to clone to.');
    }
    await requireWorkspace(this.db, input.workspaceId);
    // Targets and recordings are checked before anything is stored: all or nothing.
    await checkTargets(this.db, input.workspaceId, input.targets);
    const prepared = await Promise.all(input.samples.map((sample) => prepare(sample)));
    const voiceId = `voice_${randomBase62(20)}`;
    const now = new Date().toISOString();
    await this.db
      .insertInto('voices')
      .values({
        id: voiceId,
        workspace_id: input.workspaceId,
        environment: input.environment,
        name,
        nsfw: input.nsfw ? 1 : 0,
        default_route_id: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    try {
      for (const sample of prepared) {
        await this.#storeSample(input.workspaceId, voiceId, sample, input.actor);
      }
    } catch (error) {
      await this.db.deleteFrom('voices').where('id', '=', voiceId).execute();
      throw error;
    }
    return this.cloneToProviders({ ...input, voiceId, requestedBy: input.actor });
  }

  /**
   * Adds a recording to a voice. Ready routes become Update available: their provider voice
   * was built without it.
   */
  async addSample(
    input: {
      workspaceId: string;
      environment: Environment;
      voiceId: string;
      sample: SampleInput;
      permissionConfirmed: boolean;
    } & Actor,
  ): Promise<VoiceSample> {
    requirePermission(input.permissionConfirmed);
    await loadVoice(this.db, input.workspaceId, input.environment, input.voiceId);
    const prepared = await prepare(input.sample);
    const sample = await this.#storeSample(input.workspaceId, input.voiceId, prepared, input.actor);
    await this.db
      .updateTable('voice_routes')
      .set({ state: 'update_available', updated_at: new Date().toISOString() })
      .where('voice_id', '=', input.voiceId)
      .where('state', '=', 'ready')
      .where('sample_ids', 'is not', null)
      .execute();
    return sample;
  }

  /**
   * Clone to providers: a provider not yet attached gets a new route (Cloning); an attached
   * route whose samples changed (Update available) is refreshed, appending only the new
   * recordings where the vendor can, rebuilding from the full set elsewhere. Any other
   * attached route is refused (`conflict`): a provider is never attached twice.
   */
  async cloneToProviders(input: {
    workspaceId: string;
    environment: Environment;
    voiceId: string;
    targets: CloneTarget[];
    requestedBy: string;
  }): Promise<VoiceDetails> {
    const providers = input.targets.map((target) => target.provider);
    if (new Set(providers).size !== providers.length) {
      throw new ApiError('invalid_request', 'Each provider may be named once.');
    }
    const queued: string[] = [];
    await this.db.transaction().execute(async (trx) => {
      const voice = await loadVoice(trx, input.workspaceId, input.environment, input.voiceId);
      const sampleIds = await currentSampleIds(trx, voice.id);
      if (sampleIds.length === 0) {
        throw new ApiError('invalid_request', 'Cloning needs at least one recording.');
      }
      for (const target of input.targets) {
        const existing = voice.routes.find((route) => route.provider === target.provider);
        if (existing) {
          queued.push(await this.#refresh(trx, voice, existing, sampleIds, input.requestedBy));
        } else {
          queued.push(
            await this.#attach(trx, input.workspaceId, voice, target, sampleIds, input.requestedBy),
          );
        }
      }
    });
    await this.#enqueue(queued);
    return this.details(input.workspaceId, input.environment, input.voiceId);
  }

  /** Try again: every Failed route of the voice is submitted again (the failed group). */
  async retryFailed(input: {
    workspaceId: string;
    environment: Environment;
    voiceId: string;
    requestedBy: string;
  }): Promise<VoiceDetails> {
    const queued: string[] = [];
    await this.db.transaction().execute(async (trx) => {
      const voice = await loadVoice(trx, input.workspaceId, input.environment, input.voiceId);
      const failed = voice.routes.filter((route) => route.state === 'failed');
      if (failed.length === 0) throw new ApiError('conflict', 'No route of this voice failed.');
      const sampleIds = await currentSampleIds(trx, voice.id);
      for (const route of failed) {
        const operation: CloneAttemptOperation =
          route.provider === 'native'
            ? 'derive'
            : route.providerVoiceId === ''
              ? 'create'
              : appendsRecordings(route.provider)
                ? 'append'
                : 'rebuild';
        const sent =
          operation === 'append'
            ? sampleIds.filter((id) => !route.sampleIds.includes(id))
            : sampleIds;
        queued.push(await this.#submit(trx, voice.id, route, operation, sent, input.requestedBy));
      }
    });
    await this.#enqueue(queued);
    return this.details(input.workspaceId, input.environment, input.voiceId);
  }

  /** The voice with its samples and History. */
  async details(
    workspaceId: string,
    environment: Environment,
    voiceId: string,
  ): Promise<VoiceDetails> {
    const voice = await loadVoice(this.db, workspaceId, environment, voiceId);
    const samples = await this.db
      .selectFrom('voice_samples')
      .selectAll()
      .where('voice_id', '=', voiceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const history = await this.db
      .selectFrom('voice_clone_attempts')
      .selectAll()
      .where('voice_id', '=', voiceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return { voice, samples: samples.map(toSample), history: history.map(toAttempt) };
  }

  /** A sample's audio, only within its own workspace and environment. */
  async readSample(scope: Scope, sampleId: string): Promise<Buffer> {
    await loadVoice(this.db, scope.workspaceId, scope.environment, scope.voiceId);
    const row = await this.db
      .selectFrom('voice_samples')
      .select(['object_key'])
      .where('id', '=', sampleId)
      .where('voice_id', '=', scope.voiceId)
      .where('workspace_id', '=', scope.workspaceId)
      .executeTakeFirst();
    if (!row) throw new ApiError('not_found', `No sample ${sampleId} on this voice.`);
    return this.samples.read(scope.workspaceId, row.object_key);
  }

  async #attach(
    trx: Transaction<Database>,
    workspaceId: string,
    voice: StoredVoice,
    target: CloneTarget,
    sampleIds: string[],
    requestedBy: string,
  ): Promise<string> {
    const model = target.model ?? RECOMMENDED_MODELS[target.provider];
    if (!modelProfile(target.provider, model)) {
      throw new ApiError('invalid_request', `Unknown ${target.provider} model "${model}".`);
    }
    const accountId =
      target.provider === 'native'
        ? null
        : await accountFor(trx, workspaceId, target.provider, target.providerAccountId);
    const now = new Date().toISOString();
    const route: VoiceRoutesTable = {
      // Time-ordered: routes attached together list in the order they were named.
      id: `vr_${uuidv7()}`,
      voice_id: voice.id,
      provider: target.provider,
      model,
      provider_voice_id: '',
      provider_account_id: accountId,
      state: 'cloning',
      enabled: 1,
      capabilities: null,
      output_formats: null,
      sample_ids: null,
      failure_summary: null,
      failure_detail: null,
      blocked_by: null,
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('voice_routes').values(route).execute();
    if (voice.defaultRouteId === null) {
      // The first route is the default; it stays so until an operator picks another.
      await trx
        .updateTable('voices')
        .set({ default_route_id: route.id, updated_at: now })
        .where('id', '=', voice.id)
        .execute();
      voice.defaultRouteId = route.id;
    }
    const stored = toVoice({ ...voiceRow(voice) }, [route]).routes[0];
    if (!stored) throw new Error('route vanished');
    const operation = target.provider === 'native' ? 'derive' : 'create';
    return this.#submit(trx, voice.id, stored, operation, sampleIds, requestedBy);
  }

  async #refresh(
    trx: Transaction<Database>,
    voice: StoredVoice,
    route: StoredRoute,
    sampleIds: string[],
    requestedBy: string,
  ): Promise<string> {
    const added = sampleIds.filter((id) => !route.sampleIds.includes(id));
    const stale =
      route.state === 'update_available' || (route.state === 'ready' && added.length > 0);
    if (!stale) {
      const why =
        route.state === 'failed'
          ? 'its last clone failed; use Try again'
          : route.state === 'ready'
            ? 'it is up to date'
            : `it is ${route.state}`;
      throw new ApiError(
        'conflict',
        `${route.provider} is already attached to this voice (${why}).`,
      );
    }
    if (route.provider === 'native') {
      return this.#submit(trx, voice.id, route, 'derive', sampleIds, requestedBy);
    }
    return appendsRecordings(route.provider)
      ? this.#submit(trx, voice.id, route, 'append', added, requestedBy)
      : this.#submit(trx, voice.id, route, 'rebuild', sampleIds, requestedBy);
  }

  /** Records an attempt (queued) and puts the route in Cloning; the caller enqueues it. */
  async #submit(
    trx: Transaction<Database>,
    voiceId: string,
    route: StoredRoute,
    operation: CloneAttemptOperation,
    sampleIds: string[],
    requestedBy: string,
  ): Promise<string> {
    // Time-ordered, so History lists attempts of one submission in submission order.
    const id = `att_${uuidv7()}`;
    const now = new Date().toISOString();
    await trx
      .insertInto('voice_clone_attempts')
      .values({
        id,
        voice_id: voiceId,
        route_id: route.id,
        provider: route.provider,
        operation,
        state: 'queued',
        sample_ids: JSON.stringify(sampleIds),
        // Unique per attempt: after a crash the job finds what it created by this name.
        vendor_name: `awp ${voiceId} ${id}`,
        vendor_request_at: null,
        provider_voice_id: null,
        failure_summary: null,
        failure_detail: null,
        requested_by: requestedBy,
        created_at: now,
        finished_at: null,
      })
      .execute();
    await trx
      .updateTable('voice_routes')
      .set({ state: 'cloning', failure_summary: null, failure_detail: null, updated_at: now })
      .where('id', '=', route.id)
      .execute();
    return id;
  }

  async #enqueue(attemptIds: string[]): Promise<void> {
    for (const attemptId of attemptIds) {
      try {
        await this.queue.enqueue(attemptId);
      } catch (error) {
        await failUnqueued(this.db, attemptId, error);
        throw new ApiError('service_unavailable', 'The clone queue is unavailable; try again.');
      }
    }
  }

  async #storeSample(
    workspaceId: string,
    voiceId: string,
    sample: PreparedSample,
    actor: string,
  ): Promise<VoiceSample> {
    const id = `smp_${randomBase62(20)}`;
    const objectKey = sampleObjectKey({
      workspaceId,
      voiceId,
      sampleId: id,
      extension: sample.extension,
    });
    await this.samples.put(objectKey, sample.input.audio, sample.contentType);
    const now = new Date().toISOString();
    const row = {
      id,
      voice_id: voiceId,
      workspace_id: workspaceId,
      object_key: objectKey,
      file_name: sample.input.fileName.slice(0, 200),
      content_type: sample.contentType,
      size_bytes: sample.input.audio.byteLength,
      duration_ms: sample.durationMs,
      sample_rate_hz: sample.sampleRateHz,
      language: sample.input.language,
      transcript: sample.transcript,
      permission_confirmed_by: actor,
      permission_confirmed_at: now,
      created_at: now,
    };
    await this.db.insertInto('voice_samples').values(row).execute();
    return toSample(row);
  }
}

export type { Scope } from './types.ts';
