import type { Kysely } from 'kysely';
import type { Database, VoiceCloneAttemptsTable, VoiceRoutesTable } from '../../db/schema.ts';
import type { Logger } from '../../observability/logger.ts';
import type { CloneFile, CloneResult, VoiceCloner } from '../../tts/providers/cloning/cloner.ts';
import { ProviderError } from '../../tts/providers/errors.ts';
import { UpstreamProviderError } from '../../tts/providers/upstream/status.ts';
import type { UpstreamProviderKind } from '../../tts/providers/upstream-registry.ts';
import { modelProfile } from '../route-profile.ts';
import { deriveNativeVoice, measureVoice } from './native-derivation.ts';
import { decodeForAnalysis } from './sample-audio.ts';
import { SampleDecoder } from './sample-decoder.ts';
import type { SampleStore } from './sample-store.ts';

/** Opens the cloner of a vendor on a route's account (null: the deployment's key). */
export type ClonerFor = (
  provider: UpstreamProviderKind,
  providerAccountId: string | null,
) => Promise<VoiceCloner>;

/** How one run of an attempt ended. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'skipped';

/**
 * Runs one clone attempt: the body of a clone job. Idempotent across crashes and retries:
 *
 * - The vendor request is recorded (`vendor_request_at`) before it is sent. A run that
 *   finds it set does not know whether the vendor acted, so it reconciles first: create and
 *   rebuild look the voice up by the unique name they sent; append asks which file names
 *   (sample ids) the vendor voice already holds and sends only the others.
 * - A finished attempt is never run again.
 *
 * Retryable vendor failures (timeouts, 429, 5xx) are rethrown while tries remain, so the
 * queue retries with backoff; anything else, or the last try, fails the attempt and the
 * route with a summary and the technical detail (History).
 */
export class CloneRunner {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly samples: SampleStore,
    private readonly clonerFor: ClonerFor,
    private readonly logger: Logger,
    /** Bounds the decoding of recordings (concurrency, time, output). */
    private readonly decoder: SampleDecoder = new SampleDecoder(),
  ) {}

  async run(
    attemptId: string,
    options: { finalTry: boolean; signal: AbortSignal },
  ): Promise<AttemptOutcome> {
    const attempt = await this.db
      .selectFrom('voice_clone_attempts')
      .selectAll()
      .where('id', '=', attemptId)
      .executeTakeFirst();
    if (!attempt || attempt.state === 'succeeded' || attempt.state === 'failed') return 'skipped';
    const route = await this.db
      .selectFrom('voice_routes')
      .selectAll()
      .where('id', '=', attempt.route_id)
      .executeTakeFirst();
    if (!route) return 'skipped';
    await this.db
      .updateTable('voice_clone_attempts')
      .set({ state: 'running' })
      .where('id', '=', attemptId)
      .execute();
    try {
      const result = await this.#perform(attempt, route, options.signal);
      await this.#succeed(attempt, route, result);
      return 'succeeded';
    } catch (error) {
      const retryable =
        error instanceof ProviderError ? error.retryable : !(error instanceof PermanentCloneError);
      if (retryable && !options.finalTry && !options.signal.aborted) {
        this.logger.warn(
          { err: error, attempt: attemptId, provider: route.provider },
          'clone attempt failed; retrying',
        );
        throw error;
      }
      await this.#fail(attempt, route, error);
      return 'failed';
    }
  }

  async #perform(
    attempt: VoiceCloneAttemptsTable,
    route: VoiceRoutesTable,
    signal: AbortSignal,
  ): Promise<CloneResult> {
    const sampleIds = JSON.parse(attempt.sample_ids) as string[];
    const files = await this.#files(sampleIds);
    if (route.provider === 'native') {
      const recordings = await Promise.all(
        files.map(async (file) => ({
          pcm: await decodeForAnalysis(file.data, this.decoder),
          transcript: file.transcript,
        })),
      );
      const measured = await measureVoice(recordings);
      if (measured.voicedFrames < 10) {
        throw new PermanentCloneError(
          'Too little voiced speech in the recordings to derive a voice.',
        );
      }
      const derived = deriveNativeVoice(measured, majorityLanguage(files));
      this.logger.info(
        { attempt: attempt.id, measured, reference: derived.reference },
        'native voice derived from samples',
      );
      return { providerVoiceId: derived.reference };
    }
    const cloner = await this.clonerFor(route.provider, route.provider_account_id);
    const reconcile = attempt.vendor_request_at !== null;
    if (attempt.operation === 'append') {
      let toSend = files;
      if (reconcile) {
        const present = await cloner.fileNames(route.provider_voice_id, signal);
        toSend = files.filter((file) => !present.has(file.fileName));
      } else {
        await this.#markSent(attempt.id);
      }
      if (toSend.length > 0) {
        await cloner.append(route.provider_voice_id, attempt.vendor_name, toSend, signal);
      }
      return { providerVoiceId: route.provider_voice_id };
    }
    if (reconcile) {
      const found = await cloner.findByName(attempt.vendor_name, signal);
      if (found !== null) {
        this.logger.info(
          { attempt: attempt.id, provider: route.provider },
          'clone found at the vendor after an interrupted try; not created again',
        );
        return { providerVoiceId: found };
      }
    } else {
      await this.#markSent(attempt.id);
    }
    return cloner.create(
      {
        name: attempt.vendor_name,
        description: `Cloned voice ${attempt.voice_id}`,
        files,
      },
      signal,
    );
  }

  async #markSent(attemptId: string): Promise<void> {
    await this.db
      .updateTable('voice_clone_attempts')
      .set({ vendor_request_at: new Date().toISOString() })
      .where('id', '=', attemptId)
      .execute();
  }

  async #files(sampleIds: string[]): Promise<CloneFile[]> {
    if (sampleIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('voice_samples')
      .selectAll()
      .where('id', 'in', sampleIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    if (rows.length !== sampleIds.length) {
      throw new PermanentCloneError('A recording of this attempt no longer exists.');
    }
    return Promise.all(
      rows.map(async (row) => ({
        fileName: `${row.id}.${row.object_key.split('.').pop() ?? 'bin'}`,
        contentType: row.content_type,
        data: await this.samples.read(row.workspace_id, row.object_key),
        transcript: row.transcript,
        language: row.language,
      })),
    );
  }

  async #succeed(
    attempt: VoiceCloneAttemptsTable,
    route: VoiceRoutesTable,
    result: CloneResult,
  ): Promise<void> {
    const { providerVoiceId, blockedReason } = result;
    const now = new Date().toISOString();
    const sent = JSON.parse(attempt.sample_ids) as string[];
    const before = route.sample_ids === null ? [] : (JSON.parse(route.sample_ids) as string[]);
    const built = attempt.operation === 'append' ? [...new Set([...before, ...sent])] : sent;
    const replaced =
      attempt.operation === 'rebuild' &&
      route.provider_voice_id !== '' &&
      route.provider_voice_id !== providerVoiceId
        ? route.provider_voice_id
        : null;
    const profile = modelProfile(route.provider, route.model);
    await this.db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('voice_samples')
        .select('id')
        .where('voice_id', '=', route.voice_id)
        .execute();
      const fresh = current.every((row) => built.includes(row.id));
      const latest = await trx
        .selectFrom('voice_routes')
        .select('state')
        .where('id', '=', route.id)
        .executeTakeFirst();
      await trx
        .updateTable('voice_routes')
        .set({
          provider_voice_id: providerVoiceId,
          sample_ids: JSON.stringify(built),
          capabilities: profile ? JSON.stringify(profile.capabilities) : null,
          output_formats: profile ? JSON.stringify(profile.outputFormats) : null,
          // A block set while the job ran stays; a vendor holding the voice back blocks it;
          // otherwise Ready, or Update available when recordings arrived during the clone.
          ...(latest?.state !== 'cloning'
            ? {}
            : blockedReason !== undefined
              ? { state: 'blocked' as const, blocked_by: 'provider' }
              : { state: fresh ? ('ready' as const) : ('update_available' as const) }),
          ...(latest?.state === 'cloning'
            ? { failure_summary: blockedReason ?? null, failure_detail: null }
            : {}),
          updated_at: now,
        })
        .where('id', '=', route.id)
        .execute();
      await trx
        .updateTable('voice_clone_attempts')
        .set({ state: 'succeeded', provider_voice_id: providerVoiceId, finished_at: now })
        .where('id', '=', attempt.id)
        .execute();
    });
    if (replaced !== null && route.provider !== 'native') {
      // The rebuilt voice serves now; the old one is only clutter at the vendor.
      const cloner = await this.clonerFor(route.provider, route.provider_account_id);
      await cloner
        .remove(replaced, AbortSignal.timeout(30_000))
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error, attempt: attempt.id },
            'removing the replaced vendor voice failed',
          ),
        );
    }
  }

  async #fail(
    attempt: VoiceCloneAttemptsTable,
    route: VoiceRoutesTable,
    error: unknown,
  ): Promise<void> {
    const { summary, detail } = describeFailure(error);
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('voice_clone_attempts')
        .set({
          state: 'failed',
          failure_summary: summary,
          failure_detail: detail,
          finished_at: now,
        })
        .where('id', '=', attempt.id)
        .execute();
      await trx
        .updateTable('voice_routes')
        .set({ state: 'failed', failure_summary: summary, failure_detail: detail, updated_at: now })
        .where('id', '=', route.id)
        .where('state', '=', 'cloning')
        .execute();
    });
    this.logger.warn(
      { attempt: attempt.id, provider: route.provider, summary, detail },
      'clone attempt failed',
    );
  }
}

/** A failure no retry can fix (missing recordings, nothing to derive from). */
export class PermanentCloneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentCloneError';
  }
}

/** The History text of a failure: a summary for operators and the technical detail. */
export function describeFailure(error: unknown): { summary: string; detail: string } {
  if (error instanceof UpstreamProviderError) {
    const parts = [
      error.message,
      error.status !== undefined ? `status ${error.status}` : undefined,
      error.vendorCode ? `vendor code ${error.vendorCode}` : undefined,
      error.upstreamRequestId ? `vendor request id ${error.upstreamRequestId}` : undefined,
    ].filter((part) => part !== undefined);
    return { summary: SUMMARIES[error.failure], detail: parts.join('; ') };
  }
  if (error instanceof ProviderError)
    return { summary: SUMMARIES[error.failure], detail: error.message };
  if (error instanceof PermanentCloneError)
    return { summary: error.message, detail: error.message };
  return {
    summary: 'The clone could not be completed.',
    detail: error instanceof Error ? error.message : String(error),
  };
}

const SUMMARIES: Readonly<Record<ProviderError['failure'], string>> = {
  auth_missing: 'No API key is configured for this provider.',
  auth_rejected: 'The provider refused the account’s API key or plan.',
  rejected: 'The provider rejected the recordings.',
  overloaded: 'The provider was busy; every retry failed.',
  unavailable: 'The provider could not be reached; every retry failed.',
};

function majorityLanguage(files: readonly CloneFile[]): string {
  const counts = new Map<string, number>();
  for (const file of files) counts.set(file.language, (counts.get(file.language) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'en-US';
}
