import type { Environment } from '../../app/config.ts';
import type {
  CloneAttemptOperation,
  CloneAttemptState,
  VoiceRouteProvider,
} from '../../db/schema.ts';
import type { StoredVoice } from '../voice-store.ts';

/** A recording as an operator uploads it. */
export interface SampleInput {
  fileName: string;
  contentType: string;
  audio: Buffer;
  /** BCP 47 language of the speech, e.g. `en-US`. */
  language: string;
  /** Exact transcript of what is said. */
  transcript: string;
}

/** A stored recording; its audio is read through {@link VoiceCloning.readSample}. */
export interface VoiceSample {
  id: string;
  voiceId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  durationMs: number;
  sampleRateHz: number;
  language: string;
  transcript: string;
  permissionConfirmedBy: string;
  permissionConfirmedAt: string;
  createdAt: string;
}

/** One entry of a voice's History: a clone submission of one route. */
export interface CloneAttempt {
  id: string;
  routeId: string;
  provider: VoiceRouteProvider;
  operation: CloneAttemptOperation;
  state: CloneAttemptState;
  sampleIds: string[];
  providerVoiceId: string | null;
  failureSummary: string | null;
  failureDetail: string | null;
  requestedBy: string;
  createdAt: string;
  finishedAt: string | null;
}

/** A provider to clone to; the model defaults to the provider's recommended one. */
export interface CloneTarget {
  provider: VoiceRouteProvider;
  model?: string | undefined;
  /** Workspace provider account (upstream vendors); default as for imports. */
  providerAccountId?: string | undefined;
}

/** A voice with its samples and History, newest attempt last. */
export interface VoiceDetails {
  voice: StoredVoice;
  samples: VoiceSample[];
  history: CloneAttempt[];
}

/** Where clone attempts are queued; the jobs process runs them (src/jobs/voice-cloning.ts). */
export interface CloneJobQueue {
  enqueue(attemptId: string): Promise<void>;
}

/** A voice named by its workspace, environment and id. */
export interface Scope {
  workspaceId: string;
  environment: Environment;
  voiceId: string;
}
