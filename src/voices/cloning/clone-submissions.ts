import type { Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { CloneAttemptOperation, Database, VoiceRoutesTable } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import { modelProfile } from '../route-profile.ts';
import { type StoredRoute, type StoredVoice, toVoice } from '../voice-store.ts';
import { accountFor, RECOMMENDED_MODELS, voiceRow } from './checks.ts';
import { appendsRecordings } from './rows.ts';
import type { CloneTarget } from './types.ts';

/**
 * What Try again sends for a Failed route: native voices are derived again; a route that
 * never got a provider voice is created; otherwise new recordings are appended where the
 * vendor can, and the voice rebuilt from the full set elsewhere.
 */
export function retryOperation(
  route: StoredRoute,
  sampleIds: string[],
): { operation: CloneAttemptOperation; sampleIds: string[] } {
  const operation: CloneAttemptOperation =
    route.provider === 'native'
      ? 'derive'
      : route.providerVoiceId === ''
        ? 'create'
        : appendsRecordings(route.provider)
          ? 'append'
          : 'rebuild';
  const sent =
    operation === 'append' ? sampleIds.filter((id) => !route.sampleIds.includes(id)) : sampleIds;
  return { operation, sampleIds: sent };
}

/**
 * Attaches a provider the voice does not have yet: a new route (Cloning) with the target's
 * model or the recommended one; the voice's first route becomes its default. Returns the
 * queued attempt's id.
 */
export async function attachRoute(
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
  return submitAttempt(trx, voice.id, stored, operation, sampleIds, requestedBy);
}

/**
 * Refreshes an attached route whose samples changed (Update available, or Ready with new
 * recordings): appends only the new recordings where the vendor can, rebuilds from the full
 * set elsewhere. Any other attached route is refused (`conflict`). Returns the attempt's id.
 */
export async function refreshRoute(
  trx: Transaction<Database>,
  voice: StoredVoice,
  route: StoredRoute,
  sampleIds: string[],
  requestedBy: string,
): Promise<string> {
  const added = sampleIds.filter((id) => !route.sampleIds.includes(id));
  const stale = route.state === 'update_available' || (route.state === 'ready' && added.length > 0);
  if (!stale) {
    const why =
      route.state === 'failed'
        ? 'its last clone failed; use Try again'
        : route.state === 'ready'
          ? 'it is up to date'
          : `it is ${route.state}`;
    throw new ApiError('conflict', `${route.provider} is already attached to this voice (${why}).`);
  }
  if (route.provider === 'native') {
    return submitAttempt(trx, voice.id, route, 'derive', sampleIds, requestedBy);
  }
  return appendsRecordings(route.provider)
    ? submitAttempt(trx, voice.id, route, 'append', added, requestedBy)
    : submitAttempt(trx, voice.id, route, 'rebuild', sampleIds, requestedBy);
}

/** Records an attempt (queued) and puts the route in Cloning; the caller enqueues it. */
export async function submitAttempt(
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
