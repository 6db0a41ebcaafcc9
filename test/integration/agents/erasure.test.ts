// Erasure erases, against the real compiled api on both databases: deleting an Agent
// removes its sessions' recordings from the audio store (listed through the store after),
// a session that ends after its Agent was deleted stores no recording, deleting one
// recording removes its file, and forgetting an end user's memories or deleting a document
// leaves none of their text in the database.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { SessionRecordings } from '../../../src/agent-sessions/session-recordings.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { audioStorageDir } from '../../../src/storage/audio-storage-dir.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';
import { beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV } from '../../helpers/agents.ts';
import { runProcess } from '../../helpers/audio.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { storeSessionRecording } from '../../helpers/session-recordings.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({}) });

const END_USER = '3f0b5a52-8d4e-4a57-9a4c-0f6f3f7b2c11';

describeEachDialect('erasure on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let store: LocalDiskAudioStore;
  let recordings: SessionRecordings;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, { env: LLM_ENV });
      api = apiClient(server.url, ws.productionKey);
      store = new LocalDiskAudioStore(audioStorageDir({ DATA_DIR: database.dataDir }));
      recordings = new SessionRecordings(handle.db, store);
    },
    budget({ servers: 1 }),
  );

  /** A recorded Agent with `count` sessions, each with a stored recording. */
  const recordedAgent = async (slug: string, count: number) => {
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, slug, {
      recordingEnabled: true,
    });
    const sessionIds: string[] = [];
    for (let n = 0; n < count; n++) sessionIds.push(await startSession(snapshot));
    for (const id of sessionIds) {
      await storeSessionRecording(handle.db, database.dataDir, { id, workspaceId: ws.workspaceId });
    }
    return { agentId: snapshot.agentId, snapshot, sessionIds };
  };
  const startSession = async (snapshot: Awaited<ReturnType<typeof publishedAgentSnapshot>>) => {
    const id = uuidv7();
    await new AgentSessions(handle.db, { heartbeatTimeoutMs: 60_000 }).create({
      id,
      snapshot,
      apiKeyId: ws.productionKeyId,
      endUserId: END_USER,
      room: `agent-session-${id}`,
      overrides: undefined,
      sessionContext: undefined,
      expiresAt: new Date(Date.now() + 60_000),
    });
    return id;
  };
  const keyOf = (sessionId: string) => `${ws.workspaceId}/recordings/${sessionId}.ogg`;
  const stored = () => store.list(`${ws.workspaceId}/recordings/`);

  it('deletes the recordings of an Agent’s sessions with the Agent, and no other', async () => {
    const doomed = await recordedAgent('doomed', 2);
    const kept = await recordedAgent('kept', 1);
    expect(await stored()).toEqual([...doomed.sessionIds, ...kept.sessionIds].map(keyOf).sort());
    // Its documents and memories go too.
    const base = `/v1/agents/${doomed.agentId}`;
    const document = await api('POST', `${base}/documents`, {
      title: 'Private notes',
      text: 'Zanzibar holiday plans.',
      end_user_id: END_USER,
    });
    expect(document.status).toBe(201);
    expect(
      (await api('POST', `${base}/memories`, { end_user_id: END_USER, text: 'Owns a heron.' }))
        .status,
    ).toBe(201);

    expect((await api('DELETE', base)).status).toBe(204);
    expect(await stored()).toEqual(kept.sessionIds.map(keyOf));
    expect((await api('GET', `/v1/agent-sessions/${doomed.sessionIds[0]}`)).status).toBe(404);
    expect(await textRows(doomed.agentId)).toEqual({ documents: 0, chunks: 0, memories: 0 });
    expect(await ftsMatches('zanzibar')).toBe(0);
  });

  it('stores no recording for a session that ends after its Agent was deleted', async () => {
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'late', {
      recordingEnabled: true,
    });
    const sessionId = await startSession(snapshot);
    expect((await api('DELETE', `/v1/agents/${snapshot.agentId}`)).status).toBe(204);
    // The worker keeps the recording when the session ends: now, after the deletion.
    const dir = await mkdtemp(path.join(tmpdir(), 'awp-late-recording-'));
    try {
      const file = path.join(dir, 'audio.ogg');
      const made = await runProcess('ffmpeg', [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:duration=1',
        '-ac',
        '2',
        '-c:a',
        'libopus',
        '-f',
        'ogg',
        file,
      ]);
      expect(made.code).toBe(0);
      const saved = await recordings.save({ id: sessionId, workspaceId: ws.workspaceId }, file);
      expect(saved).toEqual({ durationMs: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await stored()).not.toContain(keyOf(sessionId));
    expect(await store.head(keyOf(sessionId))).toBeNull();
  });

  it('deletes one session’s recording file, and an end user’s memories and documents', async () => {
    const agent = await recordedAgent('erased-parts', 2);
    const [gone, stays] = agent.sessionIds as [string, string];
    const deleted = await api('DELETE', `/v1/agent-sessions/${gone}/recording`);
    expect(deleted.status).toBe(204);
    expect(await stored()).toContain(keyOf(stays));
    expect(await stored()).not.toContain(keyOf(gone));

    const base = `/v1/agents/${agent.agentId}`;
    const document = await api('POST', `${base}/documents`, {
      title: 'Travel',
      text: 'Kilimanjaro climbing diary.',
      end_user_id: END_USER,
    });
    expect(document.status).toBe(201);
    await api('POST', `${base}/memories`, { end_user_id: END_USER, text: 'Climbs mountains.' });
    expect(await textRows(agent.agentId)).toEqual({ documents: 1, chunks: 1, memories: 1 });
    expect((await api('DELETE', `${base}/documents/${document.body.id}`)).status).toBe(204);
    expect((await api('DELETE', `${base}/memories?end_user_id=${END_USER}`)).status).toBe(204);
    expect(await textRows(agent.agentId)).toEqual({ documents: 0, chunks: 0, memories: 0 });
    expect(await ftsMatches('kilimanjaro')).toBe(0);
  });

  /** The rows that hold end users' text for an Agent. */
  const textRows = async (agentId: string) => {
    const count = async (table: 'agent_documents' | 'agent_document_chunks' | 'agent_memories') =>
      (
        await handle.db
          .selectFrom(table)
          .select('agent_id')
          .where('agent_id', '=', agentId)
          .execute()
      ).length;
    return {
      documents: await count('agent_documents'),
      chunks: await count('agent_document_chunks'),
      memories: await count('agent_memories'),
    };
  };
  /** SQLite's full-text index keeps its own copy of the terms: none may stay behind. */
  const ftsMatches = async (term: string) => {
    if (dialect !== 'sqlite') {
      const rows = await sql<{ n: number | string }>`
        select count(*) as n from agent_document_chunks where terms like ${`%${term}%`}`.execute(
        handle.db,
      );
      return Number(rows.rows[0]?.n ?? 0);
    }
    const rows = await sql<{ n: number }>`
      select count(*) as n from agent_document_chunks_fts
      where agent_document_chunks_fts match ${term}`.execute(handle.db);
    return Number(rows.rows[0]?.n ?? 0);
  };
});
