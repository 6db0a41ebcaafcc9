import type { VAD } from '@livekit/agents';
import type { SttProvider } from '../../src/stt/provider.ts';
import type { Config, Logger, WorkerApi } from '../../src/worker-boundary/index.ts';
import type { WorkerConfig } from '../config.ts';
import type { LeaseThread } from './job-lease.ts';

export interface SessionDependencies {
  config: Config;
  workerConfig: WorkerConfig;
  /** The api's services for this job (src/worker-boundary). */
  api: WorkerApi;
  vad: VAD;
  stt: SttProvider;
  /** `STT_LANGUAGE`, when set (src/stt/language.ts). */
  sttLanguage?: string | undefined;
  /** A pause that starts transcribing early (`STT_EARLY_START_PAUSE_MS`; 0: none). */
  earlyStartPauseMs: number;
  logger: Logger;
  /** The job process's lease thread, started while it waited for the session. */
  leaseThread?: LeaseThread | undefined;
  /**
   * Closes the job's connections (the api's services, speech to text). Runs once the job
   * shuts down, after the session's own shutdown steps (a hand-over, an end) are done.
   */
  closeJobResources: () => Promise<void>;
}
