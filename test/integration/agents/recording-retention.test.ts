// Session recordings past RECORDING_RETENTION_DAYS are deleted by the jobs process's sweep,
// on both databases: their files and their names, never a recent one or a session.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { SessionRecordings } from '../../../src/agent-sessions/session-recordings.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { RecordingRetention } from '../../../src/jobs/recording-retention.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { audioStorageDir } from '../../../src/storage/audio-storage-dir.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import { storeSessionRecording } from '../../helpers/session-recordings.ts';

const DAY_MS = 24 * 60 * 60_000;

describeEachDialect('session recording retention on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
  });

  it('deletes the recordings of sessions ended longer ago than the period, and only those', async () => {
    const ws = await seedWorkspace(handle);
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'recorded', {
      recordingEnabled: true,
    });
    const now = new Date('2026-11-26T12:00:00.000Z');
    // A session that ended `daysAgo` days before `now`, with a stored recording.
    const recorded = async (daysAgo: number) => {
      const id = uuidv7();
      await new AgentSessions(handle.db, { heartbeatTimeoutMs: 60_000 }).create({
        id,
        snapshot,
        apiKeyId: ws.productionKeyId,
        endUserId: undefined,
        room: `agent-session-${id}`,
        overrides: undefined,
        sessionContext: undefined,
        expiresAt: new Date(now.getTime() + 60_000),
      });
      await handle.db
        .updateTable('agent_sessions')
        .set({ state: 'ended', ended_at: new Date(now.getTime() - daysAgo * DAY_MS).toISOString() })
        .where('id', '=', id)
        .execute();
      await storeSessionRecording(handle.db, database.dataDir, { id, workspaceId: ws.workspaceId });
      return id;
    };
    const old = [await recorded(31), await recorded(45)];
    const recent = [await recorded(29), await recorded(0.5)];
    const file = (id: string) =>
      path.join(
        audioStorageDir({ DATA_DIR: database.dataDir }),
        ws.workspaceId,
        'recordings',
        `${id}.ogg`,
      );
    const recordings = new SessionRecordings(
      handle.db,
      new LocalDiskAudioStore(audioStorageDir({ DATA_DIR: database.dataDir })),
    );
    const retention = new RecordingRetention({
      recordings,
      retentionDays: 30,
      logger: createLogger('silent'),
      now: () => now,
    });
    const scope = { workspaceId: ws.workspaceId, environment: 'production' as const };

    expect(await retention.sweep()).toBe(2);
    for (const id of old) {
      expect(existsSync(file(id))).toBe(false);
      expect(await recordings.read(scope, id)).toBeUndefined();
    }
    for (const id of recent) {
      expect(existsSync(file(id))).toBe(true);
      expect((await recordings.read(scope, id))?.durationMs).toBe(1000);
    }
    // The sessions themselves stay.
    const sessions = await handle.db
      .selectFrom('agent_sessions')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(sessions.map((s) => s.id).sort()).toEqual([...old, ...recent].sort());
    // A second sweep, and a concurrent pair, find nothing more to delete.
    expect(await retention.sweep()).toBe(0);
    const later = new RecordingRetention({
      recordings,
      retentionDays: 30,
      logger: createLogger('silent'),
      now: () => new Date(now.getTime() + 2 * DAY_MS),
    });
    // Two days on, the 29-day-old one is past the period; two sweepers delete it once.
    expect((await Promise.all([later.sweep(), later.sweep()])).sort()).toEqual([0, 1]);
    expect(existsSync(file(recent[0]!))).toBe(false);
    expect(existsSync(file(recent[1]!))).toBe(true);
  });
});
