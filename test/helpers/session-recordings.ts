import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { SessionRecordings } from '../../src/agent-sessions/session-recordings.ts';
import type { Database } from '../../src/db/schema.ts';
import { audioStorageDir } from '../../src/storage/audio-storage-dir.ts';
import { LocalDiskAudioStore } from '../../src/storage/local-disk-store.ts';
import { runProcess } from './audio.ts';

/**
 * Stores a real stereo Ogg Opus recording (a tone of `seconds`, made by ffmpeg) for an ended
 * session, as the agent worker does, in the audio store of `dataDir` (the api's DATA_DIR).
 * Resolves with the stored bytes and the duration the store counted.
 */
export async function storeSessionRecording(
  db: Kysely<Database>,
  dataDir: string,
  session: { id: string; workspaceId: string },
  seconds = 1,
): Promise<{ audio: Buffer; durationMs: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'awp-recording-'));
  try {
    const file = path.join(dir, `${session.id}.ogg`);
    const result = await runProcess('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `sine=frequency=440:duration=${seconds}`,
      '-ac',
      '2',
      '-c:a',
      'libopus',
      '-f',
      'ogg',
      file,
    ]);
    if (result.code !== 0) throw new Error(`ffmpeg failed: ${result.stderr}`);
    const audio = await readFile(file);
    const recordings = new SessionRecordings(
      db,
      new LocalDiskAudioStore(audioStorageDir({ DATA_DIR: dataDir })),
    );
    const { durationMs } = await recordings.save(session, file);
    if (durationMs <= 0) throw new Error('the recording holds no audio');
    return { audio, durationMs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
