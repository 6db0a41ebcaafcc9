// The api's hand-over of live sessions whose job stopped renewing its lease: a lapsed
// session is claimed once across api hosts (its epoch goes up by one) and its Agent is
// dispatched again to the same room (a real livekit-server lists the dispatch); the job of
// the old epoch can neither renew nor end it; one hand-over per lapse; on both databases.

import { AgentDispatchClient } from 'livekit-server-sdk';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { LiveSessions } from '../../../src/live-sessions/live-sessions.ts';
import { LivekitRooms, sessionRoom } from '../../../src/live-sessions/livekit-rooms.ts';
import { SessionHandoverSweep } from '../../../src/live-sessions/session-handover.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../../helpers/database.ts';
import { type LivekitServer, startLivekit } from '../../helpers/livekit.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';

const LAPSE_MS = 3000;
const AGENT_NAME = 'handover-sweep-test';

describe.each(DIALECTS)('live session hand-over on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let livekit: LivekitServer;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    handle = await openTestDatabase(database);
    livekit = await startLivekit();
  }, 60_000);
  afterAll(async () => {
    await livekit?.stop();
    await handle?.close();
    await database?.drop();
  });

  it('hands a lapsed session to a new job once, across api hosts, and fences off the old job', async () => {
    const ws = await seedWorkspace(handle);
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'handover');
    let now = new Date('2026-11-28T12:00:00.000Z').getTime();
    const sessions = new LiveSessions(handle.db, { heartbeatTimeoutMs: 15_000, now: () => now });
    const rooms = new LivekitRooms({
      url: livekit.url,
      publicUrl: livekit.url,
      apiKey: livekit.apiKey,
      apiSecret: livekit.apiSecret,
      agentName: AGENT_NAME,
      workerWaitMs: 0,
    });
    const open = async () => {
      const id = uuidv7();
      await sessions.create({
        id,
        snapshot,
        apiKeyId: ws.productionKeyId,
        endUserId: undefined,
        room: sessionRoom(id),
        overrides: undefined,
        sessionContext: undefined,
        expiresAt: new Date(now + 60 * 60_000),
      });
      await rooms.open(id, 600_000);
      return id;
    };
    const lapsing = await open();
    const renewing = await open();
    const connecting = await open();
    expect(await sessions.markActive(lapsing)).toBe(true);
    expect(await sessions.markActive(renewing)).toBe(true);
    const hosts = [0, 1].map(
      () =>
        new SessionHandoverSweep({
          sessions,
          rooms,
          lapsedAfterMs: LAPSE_MS,
          maxDurationMs: 600_000,
          logger: createLogger('silent'),
          now: () => now,
        }),
    );
    const epochOf = async (id: string) =>
      Number(
        (
          await handle.db
            .selectFrom('agent_sessions')
            .select('job_epoch')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).job_epoch,
      );

    // Within the bound nothing is handed over.
    now += LAPSE_MS - 1000;
    expect(await sessions.renewLease(renewing, 0)).toBe(true);
    expect(await Promise.all(hosts.map((h) => h.sweep()))).toEqual([0, 0]);

    // Past it, the lapsed session is claimed once by the two hosts; the others stay.
    now += 1001;
    expect((await Promise.all(hosts.map((h) => h.sweep()))).reduce((a, b) => a + b)).toBe(1);
    expect([await epochOf(lapsing), await epochOf(renewing), await epochOf(connecting)]).toEqual([
      1, 0, 0,
    ]);
    const dispatches = new AgentDispatchClient(
      livekit.url.replace(/^ws/, 'http'),
      livekit.apiKey,
      livekit.apiSecret,
    );
    // LiveKit also lists its own dispatch of the room's creation (no agent name).
    const listed = (await dispatches.listDispatch(sessionRoom(lapsing))).filter(
      (d) => d.agentName === AGENT_NAME,
    );
    expect(
      listed
        .map((d) => JSON.parse(d.metadata))
        .sort((a, b) => (a.resume_epoch ?? 0) - (b.resume_epoch ?? 0)),
    ).toEqual([
      { session_id: lapsing, max_duration_ms: 600_000 },
      { session_id: lapsing, max_duration_ms: 600_000 - LAPSE_MS - 1, resume_epoch: 1 },
    ]);

    // One hand-over per lapse: until a job takes it, it is not claimed again.
    now += 10 * LAPSE_MS;
    expect(await sessions.renewLease(renewing, 0)).toBe(true);
    expect(await hosts[0]?.sweep()).toBe(0);

    // The old job is fenced off: it cannot renew or end the session; the new one can.
    expect(await sessions.renewLease(lapsing, 0)).toBe(false);
    expect(await sessions.end(lapsing, 'ended', 'user_left', undefined, 0)).toBe(false);
    expect(await sessions.renewLease(lapsing, 1)).toBe(true);

    // Lapsing again, it is handed over again, to epoch 2.
    now += 1;
    expect(await hosts[1]?.sweep()).toBe(0);
    now += LAPSE_MS;
    expect(await sessions.renewLease(renewing, 0)).toBe(true);
    expect(await hosts[1]?.sweep()).toBe(1);
    expect(await epochOf(lapsing)).toBe(2);
    expect(await sessions.end(lapsing, 'ended', 'user_left', undefined, 1)).toBe(false);
    expect(await sessions.end(lapsing, 'ended', 'user_left', undefined, 2)).toBe(true);
    // An ended session is nobody's to hand over; the one that stopped renewing is.
    now += 10 * LAPSE_MS;
    expect(await hosts[0]?.sweep()).toBe(1);
    expect(await epochOf(renewing)).toBe(1);
  }, 60_000);
});
