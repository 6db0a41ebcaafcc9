import type { AgentSessionRecord, WorkerSessionStore } from '../../src/worker-boundary/index.ts';

/** What the api's dispatch tells a job (`livekit-rooms.ts`). */
export interface JobMetadata {
  sessionId: string;
  maxDurationMs: number | undefined;
  /** Set when the job takes over a running session from a job that stopped renewing. */
  resumeEpoch: number | undefined;
}

export function parseJobMetadata(metadata: string): JobMetadata {
  const parsed = JSON.parse(metadata || '{}') as {
    session_id?: string;
    max_duration_ms?: number;
    resume_epoch?: number;
  };
  if (!parsed.session_id) throw new Error('dispatch metadata has no session_id');
  return {
    sessionId: parsed.session_id,
    maxDurationMs: parsed.max_duration_ms,
    resumeEpoch: parsed.resume_epoch,
  };
}

/** A session this job runs: its record, its generation and whether it resumes one. */
export interface TakenSession {
  record: AgentSessionRecord;
  epoch: number;
  resumed: boolean;
  /** When the session started (its first job), in epoch ms: the bill counts from here. */
  startedAt: number;
}

/**
 * The join step: a new session becomes active under this job (epoch 0); a hand-over is
 * taken when its epoch is still the one the api claimed for this job. Undefined when the
 * session is unknown, over, or already someone else's.
 */
export async function takeSession(
  sessions: Pick<WorkerSessionStore, 'byId' | 'markActive' | 'renewLease'>,
  job: JobMetadata,
): Promise<TakenSession | undefined> {
  const record = await sessions.byId(job.sessionId);
  if (!record) return undefined;
  if (job.resumeEpoch === undefined) {
    if (!(await sessions.markActive(job.sessionId))) return undefined;
    return { record, epoch: 0, resumed: false, startedAt: Date.now() };
  }
  if (!(await sessions.renewLease(job.sessionId, job.resumeEpoch))) return undefined;
  return {
    record,
    epoch: job.resumeEpoch,
    resumed: true,
    startedAt: record.startedAt ? Date.parse(record.startedAt) : Date.now(),
  };
}
