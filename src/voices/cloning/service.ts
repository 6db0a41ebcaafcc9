import type { Kysely } from 'kysely';
import type { Environment } from '../../app/config.ts';
import { randomBase62 } from '../../auth/key-format.ts';
import type { Database } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import { requireWorkspace } from '../../workspaces/workspaces.ts';
import { loadVoice, VoiceRouteSettings } from '../route-settings.ts';
import {
  checkTargets,
  currentSampleIds,
  failUnqueued,
  type PreparedSample,
  prepare,
  requirePermission,
} from './checks.ts';
import { attachRoute, refreshRoute, retryOperation, submitAttempt } from './clone-submissions.ts';
import { toAttempt, toSample } from './rows.ts';
import { SampleDecoder } from './sample-decoder.ts';
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
    /** Bounds the decoding of uploaded recordings (concurrency, time, output). */
    private readonly decoder: SampleDecoder = new SampleDecoder(),
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
    const prepared = await Promise.all(
      input.samples.map((sample) => prepare(sample, this.decoder)),
    );
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
    const prepared = await prepare(input.sample, this.decoder);
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
          queued.push(await refreshRoute(trx, voice, existing, sampleIds, input.requestedBy));
        } else {
          queued.push(
            await attachRoute(trx, input.workspaceId, voice, target, sampleIds, input.requestedBy),
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
        const { operation, sampleIds: sent } = retryOperation(route, sampleIds);
        queued.push(await submitAttempt(trx, voice.id, route, operation, sent, input.requestedBy));
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
