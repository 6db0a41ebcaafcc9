// A job's lease on its session (worker/agent-session/job-lease.ts) against a real database:
// the job process's lease thread keeps renewing while the job's own loop is blocked longer
// than the hand-over bound (a busy job is not a lost one), stops once the loop has not run
// for the stall bound (a stuck job is handed over), tells the job once when a newer job took
// the session, and renews nothing after `stop`. On both databases.

import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { sessionRoom } from '../../../src/agent-sessions/livekit-rooms.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  JobLease,
  type JobLeaseHandlers,
  LeaseThread,
} from '../../../worker/agent-session/job-lease.ts';
import { describeEachDialect, expect, it, type TestDatabase } from '../../fixtures/index.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

const INTERVAL_MS = 100;

/** Blocks this thread's event loop (the job's loop in a worker) for `ms`. */
function blockLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function activeSession(handle: DatabaseHandle): Promise<{
  id: string;
  sessions: AgentSessions;
}> {
  const ws = await seedWorkspace(handle);
  const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'lease');
  const sessions = new AgentSessions(handle.db, { heartbeatTimeoutMs: 15_000 });
  const id = uuidv7();
  await sessions.create({
    id,
    snapshot,
    apiKeyId: ws.productionKeyId,
    endUserId: undefined,
    room: sessionRoom(id),
    overrides: undefined,
    sessionContext: undefined,
    expiresAt: new Date(Date.now() + 60 * 60_000),
  });
  expect(await sessions.markActive(id)).toBe(true);
  return { id, sessions };
}

async function renewedAt(handle: DatabaseHandle, id: string): Promise<number> {
  const row = await handle.db
    .selectFrom('agent_sessions')
    .select('heartbeat_at')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return new Date(row.heartbeat_at as string | Date).getTime();
}

function recorder() {
  const seen = { superseded: 0, stalled: [] as number[], failed: [] as Error[] };
  const handlers: JobLeaseHandlers = {
    superseded: () => void seen.superseded++,
    stalled: (silentMs) => void seen.stalled.push(silentMs),
    failed: (error) => void seen.failed.push(error),
  };
  return { seen, handlers };
}

function startLease(
  database: TestDatabase,
  sessions: AgentSessions,
  session: { id: string; epoch: number },
  stallBoundMs: number,
  handlers: JobLeaseHandlers,
): { lease: JobLease; thread: LeaseThread } {
  const thread = new LeaseThread({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  const lease = new JobLease(
    sessions,
    thread,
    { sessionId: session.id, epoch: session.epoch, intervalMs: INTERVAL_MS, stallBoundMs },
    handlers,
  );
  return { lease, thread };
}

/** Until the thread's own renewals run (it starts in the background, as in a job process). */
async function threadRenewing(handle: DatabaseHandle, id: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // The loop runs between probes (its stamp stays fresh); during a probe only the thread
    // can renew.
    await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_MS));
    const before = Date.now();
    blockLoop(3 * INTERVAL_MS);
    if ((await renewedAt(handle, id)) > before) return;
    if (Date.now() > deadline) throw new Error('the lease thread never renewed');
  }
}

describeEachDialect('a job lease on %s', () => {
  it('keeps renewing while the job loop is blocked past the hand-over bound, within the stall bound', async ({
    handle,
    database,
  }) => {
    const { id, sessions } = await activeSession(handle);
    const { seen, handlers } = recorder();
    const { lease } = startLease(database, sessions, { id, epoch: 0 }, 10_000, handlers);
    try {
      await threadRenewing(handle, id);
      const blockedAt = Date.now();
      blockLoop(3500);
      // Renewed during the block's last half second: the api's 3 s bound never lapsed.
      expect(await renewedAt(handle, id)).toBeGreaterThan(blockedAt + 3000);
      // (The loop's own renewal may have failed meanwhile: its connection attempt timed out
      // while the loop stood still.)
      expect(seen).toMatchObject({ superseded: 0, stalled: [] });
    } finally {
      await lease.stop();
    }
  });

  it('stops renewing once the job loop has not run for the stall bound, and says so', async ({
    handle,
    database,
  }) => {
    const { id, sessions } = await activeSession(handle);
    const { seen, handlers } = recorder();
    const { lease } = startLease(database, sessions, { id, epoch: 0 }, 500, handlers);
    try {
      await threadRenewing(handle, id);
      const blockedAt = Date.now();
      blockLoop(2500);
      const last = await renewedAt(handle, id);
      // Within the bound plus a renewal's interval (and its write), never after.
      expect(last).toBeGreaterThan(blockedAt);
      expect(last).toBeLessThan(blockedAt + 500 + 2 * INTERVAL_MS + 300);
      await expect.poll(() => seen.stalled.length).toBe(1);
      expect(seen.stalled[0]).toBeGreaterThan(500);
      expect(seen.superseded).toBe(0);
    } finally {
      await lease.stop();
    }
  });

  it('tells the job once when a newer job took the session', async ({ handle, database }) => {
    const { id, sessions } = await activeSession(handle);
    const { seen, handlers } = recorder();
    const { lease } = startLease(database, sessions, { id, epoch: 0 }, 10_000, handlers);
    await threadRenewing(handle, id);
    expect(await sessions.claimHandover(id, 0)).toBe(true);
    await expect.poll(() => seen.superseded).toBe(1);
    expect(lease.superseded).toBe(true);
    await lease.stop();
    // Both renewers saw the newer epoch; the job heard of it once.
    await new Promise((resolve) => setTimeout(resolve, 5 * INTERVAL_MS));
    expect(seen).toEqual({ superseded: 1, stalled: [], failed: [] });
  });

  it('renews nothing once stopped', async ({ handle, database }) => {
    const { id, sessions } = await activeSession(handle);
    const { seen, handlers } = recorder();
    const { lease } = startLease(database, sessions, { id, epoch: 0 }, 10_000, handlers);
    await threadRenewing(handle, id);
    await lease.stop();
    const stoppedAt = await renewedAt(handle, id);
    await new Promise((resolve) => setTimeout(resolve, 5 * INTERVAL_MS));
    expect(await renewedAt(handle, id)).toBe(stoppedAt);
    expect(seen).toEqual({ superseded: 0, stalled: [], failed: [] });
  });
});
