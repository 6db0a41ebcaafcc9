import type { Kysely, Transaction } from 'kysely';
import type { Database, VoiceRouteProvider } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import { VENDORS } from '../../tts/providers/vendors.ts';
import { modelProfile, NATIVE_CLONE_MODEL } from '../route-profile.ts';
import type { StoredVoice } from '../voice-store.ts';
import { validateSample } from './sample-audio.ts';
import type { SampleDecoder } from './sample-decoder.ts';
import type { CloneTarget, SampleInput } from './types.ts';

/** Checks and small queries the cloning service runs before it writes anything. */

type Db = Kysely<Database> | Transaction<Database>;

const MAX_TRANSCRIPT_CHARS = 5_000;
const LANGUAGE_PATTERN = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** The model each provider clones onto unless the operator names one (spec rule 6). */
export const RECOMMENDED_MODELS = Object.fromEntries([
  ...VENDORS.map((descriptor) => [descriptor.kind, descriptor.recommendedCloneModel]),
  ['native', NATIVE_CLONE_MODEL],
]) as Readonly<Record<VoiceRouteProvider, string>>;

/** A recording that passed every check, ready to store. */
export interface PreparedSample {
  input: SampleInput;
  contentType: string;
  extension: string;
  transcript: string;
  durationMs: number;
  sampleRateHz: number;
}

/** Refuses duplicate providers, unknown models and unusable provider accounts. */
export async function checkTargets(
  db: Db,
  workspaceId: string,
  targets: CloneTarget[],
): Promise<void> {
  const providers = targets.map((target) => target.provider);
  if (new Set(providers).size !== providers.length) {
    throw new ApiError('invalid_request', 'Each provider may be named once.');
  }
  for (const target of targets) {
    const model = target.model ?? RECOMMENDED_MODELS[target.provider];
    if (!modelProfile(target.provider, model)) {
      throw new ApiError('invalid_request', `Unknown ${target.provider} model "${model}".`);
    }
    if (target.provider !== 'native') {
      await accountFor(db, workspaceId, target.provider, target.providerAccountId);
    }
  }
}

/** Validates a recording (transcript, language, audio) before it is stored. */
export async function prepare(input: SampleInput, decoder: SampleDecoder): Promise<PreparedSample> {
  const transcript = input.transcript.trim();
  if (transcript === '' || [...transcript].length > MAX_TRANSCRIPT_CHARS) {
    throw new ApiError(
      'invalid_request',
      `Every recording needs its exact transcript (1 to ${MAX_TRANSCRIPT_CHARS} characters).`,
    );
  }
  if (!LANGUAGE_PATTERN.test(input.language)) {
    throw new ApiError('invalid_request', 'The language must be a BCP 47 tag such as en-US.');
  }
  const contentType = input.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const probed = await validateSample(input.audio, contentType, decoder);
  return {
    input,
    contentType,
    extension: probed.extension,
    transcript,
    durationMs: probed.durationMs,
    sampleRateHz: probed.sampleRateHz,
  };
}

/** Refuses an upload whose speaker permission was not confirmed. */
export function requirePermission(confirmed: boolean): void {
  if (!confirmed) {
    throw new ApiError(
      'invalid_request',
      'Confirm that the speaker gave permission to clone this voice.',
    );
  }
}

/** The voice's sample ids, oldest first. */
export async function currentSampleIds(db: Db, voiceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('voice_samples')
    .select('id')
    .where('voice_id', '=', voiceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The provider account a new route uses (named, the only one, or the deployment key). */
export async function accountFor(
  db: Db,
  workspaceId: string,
  provider: Exclude<VoiceRouteProvider, 'native'>,
  requested: string | undefined,
): Promise<string | null> {
  const accounts = await db
    .selectFrom('provider_accounts')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .execute();
  if (requested !== undefined) {
    if (!accounts.some((account) => account.id === requested)) {
      throw new ApiError(
        'invalid_request',
        `No ${provider} provider account ${requested} in this workspace.`,
      );
    }
    return requested;
  }
  if (accounts.length > 1) {
    throw new ApiError(
      'invalid_request',
      `The workspace has ${accounts.length} ${provider} provider accounts; name one.`,
    );
  }
  return accounts[0]?.id ?? null;
}

/** Marks an attempt and its route failed when the queue refused the job. */
export async function failUnqueued(
  db: Kysely<Database>,
  attemptId: string,
  error: unknown,
): Promise<void> {
  const now = new Date().toISOString();
  const attempt = await db
    .updateTable('voice_clone_attempts')
    .set({
      state: 'failed',
      failure_summary: 'The clone could not be queued.',
      failure_detail: error instanceof Error ? error.message : String(error),
      finished_at: now,
    })
    .where('id', '=', attemptId)
    .returning('route_id')
    .executeTakeFirst();
  if (attempt) {
    await db
      .updateTable('voice_routes')
      .set({ state: 'failed', failure_summary: 'The clone could not be queued.', updated_at: now })
      .where('id', '=', attempt.route_id)
      .execute();
  }
}

/** The voices row of a stored voice. */
export function voiceRow(voice: StoredVoice) {
  return {
    id: voice.id,
    workspace_id: voice.workspaceId,
    environment: voice.environment,
    name: voice.name,
    nsfw: voice.nsfw ? 1 : 0,
    default_route_id: voice.defaultRouteId,
    created_at: voice.createdAt,
    updated_at: voice.createdAt,
  };
}
