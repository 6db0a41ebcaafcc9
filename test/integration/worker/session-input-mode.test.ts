// A live session's input mode outlives its job: the mode a job sets (the client's
// `awp.input_mode` or push-to-talk start) is stored on the session through the worker's
// store, and the job that takes the session over after a hand-over reads it back when it
// takes the session, so it starts in it (a user in push-to-talk is not interrupted by their
// open microphone before the client sends its mode again). The job the session was handed
// away from can no longer change it. On both databases.

import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { sessionRoom } from '../../../src/agent-sessions/livekit-rooms.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { WorkerSessionStore } from '../../../src/worker-boundary/index.ts';
import { startingInputMode } from '../../../worker/agent-session/controls.ts';
import { takeSession } from '../../../worker/agent-session/session-job.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

describeEachDialect('A live session input mode across a hand-over on %s', (dialect) => {
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ handle } = await databases.get(dialect));
  }, 60_000);

  it("the mode a job set is the next epoch's job's starting mode; the lost job cannot change it", async () => {
    const ws = await seedWorkspace(handle);
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'input-mode');
    const store = new AgentSessions(handle.db, { heartbeatTimeoutMs: 15_000 });
    const sessions: WorkerSessionStore = store;
    const id = uuidv7();
    await store.create({
      id,
      snapshot,
      apiKeyId: ws.productionKeyId,
      endUserId: undefined,
      room: sessionRoom(id),
      overrides: undefined,
      sessionContext: undefined,
      expiresAt: new Date(Date.now() + 60 * 60_000),
    });

    // The first job takes the new session: no mode stored yet, it starts in automatic.
    const first = await takeSession(sessions, {
      sessionId: id,
      maxDurationMs: undefined,
      resumeEpoch: undefined,
    });
    expect(first?.epoch).toBe(0);
    expect(first?.record.inputMode).toBeNull();
    expect(startingInputMode(first?.record.inputMode ?? null)).toBe('automatic');

    // The client switches it to push-to-talk; the job stores each switch.
    expect(await sessions.recordInputMode(id, 0, 'automatic')).toBe(true);
    expect(await sessions.recordInputMode(id, 0, 'push-to-talk')).toBe(true);

    // The job is lost; the api hands the session to epoch 1, whose job reads the mode.
    expect(await store.claimHandover(id, 0)).toBe(true);
    expect(await sessions.recordInputMode(id, 0, 'automatic')).toBe(false);
    const resumed = await takeSession(sessions, {
      sessionId: id,
      maxDurationMs: undefined,
      resumeEpoch: 1,
    });
    expect(resumed?.epoch).toBe(1);
    expect(resumed?.resumed).toBe(true);
    expect(resumed?.record.inputMode).toBe('push-to-talk');
    expect(startingInputMode(resumed?.record.inputMode ?? null)).toBe('push-to-talk');

    // The resumed job's own switch is stored for the job after it.
    expect(await sessions.recordInputMode(id, 1, 'automatic')).toBe(true);
    expect((await sessions.byId(id))?.inputMode).toBe('automatic');

    // Once the session ended, nothing changes it.
    expect(await sessions.end(id, 'ended', 'user_left', undefined, 1)).toBe(true);
    expect(await sessions.recordInputMode(id, 1, 'push-to-talk')).toBe(false);
    expect((await sessions.byId(id))?.inputMode).toBe('automatic');
  });
});
