import type {
  VoiceCloneAttemptsTable,
  VoiceRouteProvider,
  VoiceSamplesTable,
} from '../../db/schema.ts';
import { registeredVendor } from '../../tts/providers/vendors.ts';
import type { CloneAttempt, VoiceSample } from './types.ts';

/**
 * Whether a provider's voice can take more recordings after creation (its vendor
 * descriptor says), so a refresh sends only the new ones. The native route re-derives
 * from everything.
 */
export function appendsRecordings(provider: VoiceRouteProvider): boolean {
  return registeredVendor(provider)?.appendsRecordings ?? false;
}

export function toSample(row: VoiceSamplesTable): VoiceSample {
  return {
    id: row.id,
    voiceId: row.voice_id,
    fileName: row.file_name,
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    durationMs: Number(row.duration_ms),
    sampleRateHz: Number(row.sample_rate_hz),
    language: row.language,
    transcript: row.transcript,
    permissionConfirmedBy: row.permission_confirmed_by,
    permissionConfirmedAt: row.permission_confirmed_at,
    createdAt: row.created_at,
  };
}

export function toAttempt(row: VoiceCloneAttemptsTable): CloneAttempt {
  return {
    id: row.id,
    routeId: row.route_id,
    provider: row.provider,
    operation: row.operation,
    state: row.state,
    sampleIds: JSON.parse(row.sample_ids) as string[],
    providerVoiceId: row.provider_voice_id,
    failureSummary: row.failure_summary,
    failureDetail: row.failure_detail,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}
