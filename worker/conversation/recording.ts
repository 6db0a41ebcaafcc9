import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { JobContext } from '@livekit/agents';
import { SessionRecordings } from '../../src/agents/session-recordings.ts';
import type { Config } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import type { Logger } from '../../src/observability/logger.ts';
import { openAudioStores } from '../../src/storage/stores.ts';

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
 * the session's close event fires; it moves into the audio store and the session names it.
 * A failure is logged and leaves the session without a recording; the job's copy is removed
 * either way.
 */
export async function keepRecording(
  ctx: JobContext,
  session: { id: string; workspaceId: string },
  deps: { config: Config; db: DatabaseHandle; log: Logger },
): Promise<void> {
  const file = path.join(ctx.sessionDirectory, 'audio.ogg');
  try {
    const recordings = new SessionRecordings(deps.db.db, openAudioStores(deps.config).audio);
    const { durationMs } = await recordings.save(session, file);
    deps.log.info({ recording_ms: durationMs }, 'session recording kept');
  } catch (error) {
    deps.log.warn({ err: error }, 'session recording not kept');
  } finally {
    await rm(file, { force: true });
  }
}
