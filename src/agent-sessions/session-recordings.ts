import { readFile } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import { OggOpusDurationCounter } from '../../media/codecs/ogg-opus-duration.ts';
import type { Database } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';
import type { AudioStore } from '../storage/audio-store.ts';

/** A stored recording: the file and how long it plays. */
export interface SessionRecording {
  audio: Buffer;
  durationMs: number;
  contentType: typeof RECORDING_CONTENT_TYPE;
}

/** The answer that serves a recording, the same from `/v1` and the operator API. */
export function recordingResponse(recording: SessionRecording) {
  return {
    status: 200,
    headers: {
      'content-type': recording.contentType,
      'x-audio-duration-ms': String(recording.durationMs),
      // A conversation of an end user: never kept by shared caches, never sniffed.
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    },
    body: recording.audio,
  };
}

/** Recordings are stereo Ogg Opus at 48 kHz: the user on the left, the Agent on the right. */
export const RECORDING_CONTENT_TYPE = 'audio/ogg';

/** The audio store key of a session's recording: beside the workspace's request audio. */
export function recordingObjectKey(workspaceId: string, sessionId: string): string {
  return `${workspaceId}/recordings/${sessionId}.ogg`;
}

/**
 * Recordings of Agent sessions whose Agent records them. The worker stores one when a
 * session ends ({@link SessionRecordings.save}); the api serves and deletes it for the
 * session's workspace and environment only. The file lives in the audio store (the api and
 * the worker share `DATA_DIR/audio`); the session row names it.
 */
export class SessionRecordings {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: AudioStore,
  ) {}

  /**
   * Moves the finished recording at `sourcePath` into the store and names it on the session.
   * Returns its duration; a file that holds no audio is not kept (0), nor is the recording
   * of a session that is gone (its Agent was deleted while it ran): the caller removes the
   * source file either way.
   */
  async save(
    session: { id: string; workspaceId: string },
    sourcePath: string,
  ): Promise<{ durationMs: number }> {
    if (!(await this.#sessionExists(session))) return { durationMs: 0 };
    const counter = new OggOpusDurationCounter();
    counter.push(await readFile(sourcePath));
    const durationMs = counter.durationMs;
    if (durationMs <= 0) return { durationMs: 0 };
    const key = recordingObjectKey(session.workspaceId, session.id);
    await this.store.putFile(key, sourcePath, RECORDING_CONTENT_TYPE);
    const named = await this.db
      .updateTable('agent_sessions')
      .set({ recording_key: key, recording_duration_ms: durationMs })
      .where('id', '=', session.id)
      .where('workspace_id', '=', session.workspaceId)
      .executeTakeFirst();
    if (Number(named.numUpdatedRows) === 0) {
      // The session was deleted while the file moved in: nothing may keep it.
      await this.store.delete(key);
      return { durationMs: 0 };
    }
    return { durationMs };
  }

  /**
   * Erases the recordings of sessions whose rows are gone (their Agent was deleted): the
   * files are named by the session id, so no row is needed to find them. Returns how many
   * files there were.
   */
  async erase(workspaceId: string, sessionIds: readonly string[]): Promise<number> {
    let erased = 0;
    for (const sessionId of sessionIds) {
      if (await this.store.delete(recordingObjectKey(workspaceId, sessionId))) erased++;
    }
    return erased;
  }

  /** The session's recording; undefined when the session or its recording is not there. */
  async read(scope: TenantScope, sessionId: string): Promise<SessionRecording | undefined> {
    const row = await this.#row(scope, sessionId);
    if (!row?.recording_key) return undefined;
    const audio = await this.store.get(row.recording_key);
    if (!audio) return undefined;
    return {
      audio,
      durationMs: Number(row.recording_duration_ms ?? 0),
      contentType: RECORDING_CONTENT_TYPE,
    };
  }

  /** Deletes the session's recording; false when there was none. */
  async remove(scope: TenantScope, sessionId: string): Promise<boolean> {
    const row = await this.#row(scope, sessionId);
    if (!row?.recording_key) return false;
    // The row first: a failure after it leaves a file nothing names, never a name without a file.
    await this.db
      .updateTable('agent_sessions')
      .set({ recording_key: null, recording_duration_ms: null })
      .where('id', '=', sessionId)
      .execute();
    await this.store.delete(row.recording_key);
    return true;
  }

  /**
   * Deletes the recordings of sessions that ended before `cutoff`, up to `limit` of them
   * (oldest first); returns how many this call deleted. A recording another process
   * deleted first is not counted, and its file is not touched twice.
   */
  async expireEndedBefore(cutoff: Date, limit = 100): Promise<number> {
    const rows = await this.db
      .selectFrom('agent_sessions')
      .select(['id', 'recording_key'])
      .where('recording_key', 'is not', null)
      .where('ended_at', '<', cutoff.toISOString())
      .orderBy('ended_at')
      .limit(limit)
      .execute();
    let deleted = 0;
    for (const row of rows) {
      if (!row.recording_key) continue;
      // Conditional on the key: of two sweepers, one wins the row and removes the file.
      const result = await this.db
        .updateTable('agent_sessions')
        .set({ recording_key: null, recording_duration_ms: null })
        .where('id', '=', row.id)
        .where('recording_key', '=', row.recording_key)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) continue;
      await this.store.delete(row.recording_key);
      deleted++;
    }
    return deleted;
  }

  async #sessionExists(session: { id: string; workspaceId: string }): Promise<boolean> {
    const row = await this.db
      .selectFrom('agent_sessions')
      .select('id')
      .where('id', '=', session.id)
      .where('workspace_id', '=', session.workspaceId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async #row(scope: TenantScope, sessionId: string) {
    return this.db
      .selectFrom('agent_sessions')
      .select(['recording_key', 'recording_duration_ms'])
      .where('id', '=', sessionId)
      .$call(inScope(scope))
      .executeTakeFirst();
  }
}
