import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { JobContext } from '@livekit/agents';
import type { Logger, WorkerApi } from '../../src/worker-boundary/index.ts';

/** `AgentSession.start`'s `record`, audio on and the rest off. */
interface AudioOnly {
  audio: true;
  traces: false;
  logs: false;
  transcript: false;
}

/**
 * What `AgentSession.start` is told to record: the audio only (LiveKit's recorder, a
 * stereo Ogg Opus file of the user's input and the agent's played output on one
 * timeline), never traces, logs or transcripts, which go nowhere on a self-hosted server.
 */
export function recordingOption(recordingEnabled: boolean | undefined): AudioOnly | false {
  return recordingEnabled ? { audio: true, traces: false, logs: false, transcript: false } : false;
}

/**
 * Keeps the recording of an ended session: the recorder has closed the file by the time
 * the session's close event fires; it moves into the deployment's audio store (the api's
 * storage seam) and the session names it.
 * A failure is logged and leaves the session without a recording; the job's copy is removed
 * either way.
 */
export async function keepRecording(
  ctx: JobContext,
  session: { id: string; workspaceId: string },
  deps: { api: Pick<WorkerApi, 'saveRecording'>; log: Logger },
): Promise<void> {
  const file = path.join(ctx.sessionDirectory, 'audio.ogg');
  try {
    const { durationMs } = await deps.api.saveRecording(session, file);
    deps.log.info({ recording_ms: durationMs }, 'session recording kept');
  } catch (error) {
    deps.log.warn({ err: error }, 'session recording not kept');
  } finally {
    await rm(file, { force: true });
  }
}
