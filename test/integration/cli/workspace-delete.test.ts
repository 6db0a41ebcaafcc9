// `awp workspace delete` erases a workspace on both databases: its synthesized request audio
// (made by the real compiled api), its session recordings and its voice samples leave the
// stores (listed through the storage seam after), its rows leave the database (the
// synthesis ledger included), and another workspace keeps everything.

import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { audioStorageDir, sampleStorageDir } from '../../../src/storage/audio-storage-dir.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';
import { beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { storeSessionRecording } from '../../helpers/session-recordings.ts';
import { runAwp } from '../../helpers/upstream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ awpRuns: 2 }) });

describeEachDialect('awp workspace delete on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let doomed: SeededWorkspace;
  let kept: SeededWorkspace;
  let audio: LocalDiskAudioStore;
  let samples: LocalDiskAudioStore;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      doomed = await seedWorkspace(handle);
      kept = await seedWorkspace(handle);
      server = await apis.start(database);
      audio = new LocalDiskAudioStore(audioStorageDir({ DATA_DIR: database.dataDir }));
      samples = new LocalDiskAudioStore(sampleStorageDir(database.dataDir));
    },
    budget({ servers: 1 }),
  );

  /** A synthesized request (kept in the audio store by the api) and a recorded session. */
  const fill = async (ws: SeededWorkspace) => {
    const reply = await apiClient(server.url, ws.productionKey)('POST', '/v1/tts', {
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      text: 'Erase me.',
    });
    expect(reply.status).toBe(200);
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'recorded', {
      recordingEnabled: true,
    });
    const sessionId = uuidv7();
    await new AgentSessions(handle.db, { heartbeatTimeoutMs: 60_000 }).create({
      id: sessionId,
      snapshot,
      apiKeyId: ws.productionKeyId,
      endUserId: undefined,
      room: `agent-session-${sessionId}`,
      overrides: undefined,
      sessionContext: undefined,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await storeSessionRecording(handle.db, database.dataDir, {
      id: sessionId,
      workspaceId: ws.workspaceId,
    });
    await samples.put(`${ws.workspaceId}/voice_x/sample.wav`, Buffer.from('RIFF'), 'audio/wav');
    // Request audio is kept best effort, after the answer.
    return waitFor(
      async () => {
        const keys = await audio.list(`${ws.workspaceId}/`);
        return keys.length === 2 && keys;
      },
      { what: `the audio of ${ws.workspaceId} to be stored`, timeoutMs: 20_000 },
    );
  };
  const rowsOf = async (workspaceId: string) => ({
    workspaces: (
      await handle.db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).execute()
    ).length,
    requests: (
      await handle.db
        .selectFrom('synthesis_requests')
        .select('request_id')
        .where('workspace_id', '=', workspaceId)
        .execute()
    ).length,
    sessions: (
      await handle.db
        .selectFrom('agent_sessions')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .execute()
    ).length,
    keys: (
      await handle.db
        .selectFrom('api_keys')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .execute()
    ).length,
  });

  it('erases the stored audio, recordings and samples, then the rows; others keep theirs', async () => {
    const doomedKeys = await fill(doomed);
    const keptKeys = await fill(kept);
    expect(doomedKeys.some((key) => key.startsWith(`${doomed.workspaceId}/recordings/`))).toBe(
      true,
    );
    expect(await rowsOf(doomed.workspaceId)).toEqual({
      workspaces: 1,
      requests: 1,
      sessions: 1,
      keys: 2,
    });

    const refused = runAwp(server.env, ['workspace', 'delete', '--workspace', doomed.workspaceId]);
    expect(refused.status).not.toBe(0);
    expect(await audio.list(`${doomed.workspaceId}/`)).toEqual(doomedKeys);

    const result = runAwp(server.env, [
      'workspace',
      'delete',
      '--workspace',
      doomed.workspaceId,
      '--yes',
      '--json',
    ]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      workspace_id: doomed.workspaceId,
      objects_deleted: 3,
    });
    expect(await audio.list(`${doomed.workspaceId}/`)).toEqual([]);
    expect(await samples.list(`${doomed.workspaceId}/`)).toEqual([]);
    expect(await rowsOf(doomed.workspaceId)).toEqual({
      workspaces: 0,
      requests: 0,
      sessions: 0,
      keys: 0,
    });
    // Its keys are refused; the other workspace keeps everything.
    const doomedApi = apiClient(server.url, doomed.productionKey);
    await waitFor(async () => (await doomedApi('GET', '/v1/voices')).status === 401, {
      what: 'the erased workspace’s key to be refused',
      timeoutMs: 3_000,
    });
    expect(await audio.list(`${kept.workspaceId}/`)).toEqual(keptKeys);
    expect(await samples.list(`${kept.workspaceId}/`)).toEqual([
      `${kept.workspaceId}/voice_x/sample.wav`,
    ]);
    expect((await rowsOf(kept.workspaceId)).requests).toBe(1);
  });
});
