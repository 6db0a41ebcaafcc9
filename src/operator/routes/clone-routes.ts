import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import { VENDOR_KINDS } from '../../tts/providers/vendors.ts';
import { SAMPLE_LIMITS } from '../../voices/cloning/sample-audio.ts';
import type { VoiceCloning } from '../../voices/cloning/service.ts';
import type {
  CloneAttempt,
  CloneTarget,
  SampleInput,
  VoiceDetails,
  VoiceSample,
} from '../../voices/cloning/types.ts';
import { VOICE_MANAGER_ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import { readUploadForm, type UploadedFile } from '../multipart.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { EVERY_ROLE, operatorRoute } from '../route.ts';
import { scopeOf, voiceView } from './voice-routes.ts';

/** Recordings one create request may carry; more are added one by one (spec rule 5). */
const MAX_RECORDINGS_PER_REQUEST = 5;
/** Room for the form's boundaries, headers and metadata beside the audio. */
const FORM_OVERHEAD_BYTES = 256 * 1024;

const PERMISSION = z.literal(true, {
  error: 'confirm that you have the speaker’s permission (permission_confirmed: true)',
});

const targetSchema = z.strictObject({
  provider: z.enum([...VENDOR_KINDS, 'native']),
  /** Default: the provider's recommended model (spec rule 6). */
  model: z.string().min(1).max(100).optional(),
  provider_account_id: z.string().min(1).max(100).optional(),
});
const targetsSchema = z.array(targetSchema).min(1).max(3);

const recordingSchema = z.strictObject({
  language: z.string().min(1).max(35),
  transcript: z.string().min(1).max(5_000),
});

const createSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  nsfw: z.boolean().optional(),
  permission_confirmed: PERMISSION,
  targets: targetsSchema,
  /** One entry per `recording` file, in the order the files appear in the form. */
  recordings: z.array(recordingSchema).min(1).max(MAX_RECORDINGS_PER_REQUEST),
});

const sampleSchema = recordingSchema.extend({ permission_confirmed: PERMISSION });
const cloneSchema = z.strictObject({ targets: targetsSchema });
const blockSchema = z.strictObject({ reason: z.string().trim().min(1).max(500) });

function sampleView(sample: VoiceSample) {
  return {
    id: sample.id,
    file_name: sample.fileName,
    content_type: sample.contentType,
    size_bytes: sample.sizeBytes,
    duration_ms: sample.durationMs,
    sample_rate_hz: sample.sampleRateHz,
    language: sample.language,
    transcript: sample.transcript,
    permission_confirmed_by: sample.permissionConfirmedBy,
    permission_confirmed_at: sample.permissionConfirmedAt,
    created_at: sample.createdAt,
  };
}

function attemptView(attempt: CloneAttempt) {
  return {
    id: attempt.id,
    route_id: attempt.routeId,
    provider: attempt.provider,
    operation: attempt.operation,
    state: attempt.state,
    sample_ids: attempt.sampleIds,
    provider_voice_id: attempt.providerVoiceId,
    failure_summary: attempt.failureSummary,
    /** Technical details of a failure (vendor status and message), for support. */
    failure_detail: attempt.failureDetail,
    requested_by: attempt.requestedBy,
    created_at: attempt.createdAt,
    finished_at: attempt.finishedAt,
  };
}

function detailsView(details: VoiceDetails) {
  return {
    voice: voiceView(details.voice),
    samples: details.samples.map(sampleView),
    history: details.history.map(attemptView),
  };
}

function toTargets(targets: z.infer<typeof targetsSchema>): CloneTarget[] {
  return targets.map((target) => ({
    provider: target.provider,
    model: target.model,
    providerAccountId: target.provider_account_id,
  }));
}

function toSampleInput(file: UploadedFile, meta: z.infer<typeof recordingSchema>): SampleInput {
  return {
    fileName: file.fileName || 'recording',
    contentType: file.contentType,
    audio: file.data,
    language: meta.language,
    transcript: meta.transcript,
  };
}

/**
 * Cloning through the operator API: create a voice by its first clone submission, samples
 * (upload, list, read the audio), clone to further providers or refresh one, Try again,
 * Block and unblock, History. Browsing: every role; writes: Owner and Admin (spec rule 1).
 * Uploads are `multipart/form-data` with a JSON `metadata` field and `recording` files.
 */
export function cloneRoutes(guard: OperatorGuard, cloning: VoiceCloning): AnyRoute[] {
  const routes = cloning.routes;
  const detailsOf = (member: OperatorPrincipal, request: HttpRequest) => {
    const scope = scopeOf(member, request);
    return cloning.details(scope.workspaceId, scope.environment, scope.voiceId);
  };
  return [
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices',
      operationId: 'operatorCreateVoice',
      summary: 'Creates a voice from recordings and submits its first clone to the providers.',
      roles: VOICE_MANAGER_ROLES,
      bodyLimitBytes: MAX_RECORDINGS_PER_REQUEST * SAMPLE_LIMITS.maxBytes + FORM_OVERHEAD_BYTES,
      spoolBody: true,
      errors: ['invalid_request'],
      handle: async ({ member, request }) => {
        const form = await readUploadForm(request, createSchema);
        const files = form.files('recording');
        const { metadata } = form;
        if (files.length !== metadata.recordings.length) {
          throw new ApiError(
            'invalid_request',
            `The form has ${files.length} recording files for ${metadata.recordings.length} entries of metadata.recordings.`,
          );
        }
        const details = await cloning.createAndClone({
          workspaceId: member.workspaceId,
          environment: request.environment,
          name: metadata.name,
          nsfw: metadata.nsfw,
          samples: files.map((file, i) => toSampleInput(file, metadata.recordings[i]!)),
          permissionConfirmed: metadata.permission_confirmed,
          targets: toTargets(metadata.targets),
          actor: member.email,
        });
        return { status: 201, body: detailsView(details) };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices/:voiceId/samples',
      operationId: 'operatorAddVoiceSample',
      summary: 'Adds a recording; Ready routes become Update available.',
      roles: VOICE_MANAGER_ROLES,
      bodyLimitBytes: SAMPLE_LIMITS.maxBytes + FORM_OVERHEAD_BYTES,
      spoolBody: true,
      errors: ['voice_not_found', 'invalid_request'],
      handle: async ({ member, request }) => {
        const form = await readUploadForm(request, sampleSchema);
        const files = form.files('recording');
        if (files.length !== 1 || !files[0]) {
          throw new ApiError('invalid_request', 'Add exactly one recording file per request.');
        }
        const scope = scopeOf(member, request);
        const sample = await cloning.addSample({
          ...scope,
          sample: toSampleInput(files[0], form.metadata),
          permissionConfirmed: form.metadata.permission_confirmed,
          actor: member.email,
        });
        return { status: 201, body: { sample: sampleView(sample) } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/voices/:voiceId/samples',
      operationId: 'operatorListVoiceSamples',
      summary: 'The voice’s recordings (metadata; the audio has its own route).',
      roles: EVERY_ROLE,
      errors: ['voice_not_found'],
      handle: async ({ member, request }) => {
        const details = await detailsOf(member, request);
        return { status: 200, body: { samples: details.samples.map(sampleView) } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/voices/:voiceId/samples/:sampleId/audio',
      operationId: 'operatorReadVoiceSample',
      summary: 'The audio of one recording, for members of the voice’s workspace only.',
      roles: EVERY_ROLE,
      errors: ['voice_not_found', 'not_found'],
      handle: async ({ member, request }) => {
        const scope = scopeOf(member, request);
        const sampleId = request.params.sampleId ?? '';
        const details = await detailsOf(member, request);
        const sample = details.samples.find((candidate) => candidate.id === sampleId);
        if (!sample) throw new ApiError('not_found', `No sample ${sampleId} on this voice.`);
        const audio = await cloning.readSample(scope, sampleId);
        return {
          status: 200,
          headers: {
            'content-type': sample.contentType,
            // A speaker's recording: never kept by shared caches, never sniffed into HTML.
            'cache-control': 'private, no-store',
            'x-content-type-options': 'nosniff',
          },
          body: audio,
        };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices/:voiceId/clone',
      operationId: 'operatorCloneVoice',
      summary: 'Clone to providers: attaches new ones, refreshes Update available ones.',
      roles: VOICE_MANAGER_ROLES,
      body: cloneSchema,
      errors: ['voice_not_found', 'invalid_request', 'conflict', 'service_unavailable'],
      handle: async ({ member, request, body }) => {
        const details = await cloning.cloneToProviders({
          ...scopeOf(member, request),
          targets: toTargets(body.targets),
          requestedBy: member.email,
        });
        return { status: 200, body: detailsView(details) };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices/:voiceId/routes/:routeId/refresh',
      operationId: 'operatorRefreshVoiceRoute',
      summary: 'Re-clones an Update available route with the current recordings.',
      roles: VOICE_MANAGER_ROLES,
      errors: ['voice_not_found', 'not_found', 'conflict', 'service_unavailable'],
      handle: async ({ member, request }) => {
        const scope = scopeOf(member, request);
        const routeId = request.params.routeId ?? '';
        const route = (await routes.voice(scope)).routes.find((r) => r.id === routeId);
        if (!route) throw new ApiError('not_found', `No route ${routeId} on this voice.`);
        const details = await cloning.cloneToProviders({
          ...scope,
          targets: [{ provider: route.provider }],
          requestedBy: member.email,
        });
        return { status: 200, body: detailsView(details) };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices/:voiceId/retry',
      operationId: 'operatorRetryVoiceClone',
      summary: 'Try again: resubmits every Failed route of the voice as one group.',
      roles: VOICE_MANAGER_ROLES,
      errors: ['voice_not_found', 'conflict', 'service_unavailable'],
      handle: async ({ member, request }) => {
        const details = await cloning.retryFailed({
          ...scopeOf(member, request),
          requestedBy: member.email,
        });
        return { status: 200, body: detailsView(details) };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices/:voiceId/routes/:routeId/block',
      operationId: 'operatorBlockVoiceRoute',
      summary: 'Blocks a route: it serves and clones nothing until unblocked.',
      roles: VOICE_MANAGER_ROLES,
      body: blockSchema,
      errors: ['voice_not_found', 'not_found', 'conflict'],
      handle: async ({ member, request, body }) => {
        const voice = await routes.blockRoute(
          scopeOf(member, request),
          request.params.routeId ?? '',
          body.reason,
        );
        return { status: 200, body: { voice: voiceView(voice) } };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/voices/:voiceId/routes/:routeId/unblock',
      operationId: 'operatorUnblockVoiceRoute',
      summary: 'Lifts a block: Ready, Update available, or Failed without a provider voice.',
      roles: VOICE_MANAGER_ROLES,
      errors: ['voice_not_found', 'not_found', 'conflict'],
      handle: async ({ member, request }) => {
        const voice = await routes.unblockRoute(
          scopeOf(member, request),
          request.params.routeId ?? '',
        );
        return { status: 200, body: { voice: voiceView(voice) } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/voices/:voiceId/history',
      operationId: 'operatorVoiceHistory',
      summary: 'Every clone attempt of the voice, oldest first, with failure details.',
      roles: EVERY_ROLE,
      errors: ['voice_not_found'],
      handle: async ({ member, request }) => {
        const details = await detailsOf(member, request);
        return { status: 200, body: { history: details.history.map(attemptView) } };
      },
    }),
  ];
}
