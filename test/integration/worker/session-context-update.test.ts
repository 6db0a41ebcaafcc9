// An application backend's `update_context` outlives the job that applied it: the job stores
// each update with the session through its store (instructions replace the last ones,
// messages are appended, each after the transcript turns stored when it arrived), and the
// job that takes the session over after a hand-over reads it back when it takes the session
// and starts from the context the lost job had (the start's history, the stored turns with
// the appended messages among them, the last instructions). The job the session was handed
// away from can no longer change it. On both databases.

import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { sessionRoom } from '../../../src/agent-sessions/livekit-rooms.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { WorkerSessionStore } from '../../../src/worker-boundary/index.ts';
import { takeSession } from '../../../worker/agent-session/session-job.ts';
import { conversationSoFar } from '../../../worker/agent-session/session-resume.ts';
import { applicationChatContext } from '../../../worker/application/context-replay.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

describeEachDialect('An application context update across a hand-over on %s', (dialect) => {
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ handle } = await databases.get(dialect));
  }, 60_000);

  it("the lost job's updates are the next epoch's job's starting context; the lost job cannot change them", async () => {
    const ws = await seedWorkspace(handle);
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'context');
    const store = new AgentSessions(handle.db, { heartbeatTimeoutMs: 15_000 });
    const sessions: WorkerSessionStore = store;
    const id = uuidv7();
    const history = [{ role: 'user' as const, content: 'I booked for two.' }];
    await store.create({
      id,
      snapshot,
      apiKeyId: ws.productionKeyId,
      endUserId: undefined,
      room: sessionRoom(id),
      overrides: undefined,
      sessionContext: undefined,
      expiresAt: new Date(Date.now() + 60 * 60_000),
      application: {
        spec: { instructions: 'START: you are the booking desk.', history, tools: [] },
        backendIdentity: 'backend-1',
        chatSessionId: uuidv7(),
        startRequestId: uuidv7(),
      },
    });
    const take = (resumeEpoch: number | undefined) =>
      takeSession(sessions, { sessionId: id, maxDurationMs: undefined, resumeEpoch });

    const first = await take(undefined);
    expect(first?.record.contextUpdate).toBeNull();

    // The backend updates the context three times around the user's first turn.
    expect(
      await sessions.recordContextUpdate(id, 0, {
        instructions: 'A: the kitchen is open.',
        messages: [{ role: 'system', content: 'M1: table 4 is booked.' }],
      }),
    ).toBe(true);
    await sessions.addTurn({
      id: uuidv7(),
      sessionId: id,
      role: 'user',
      text: 'What is on the menu?',
      interrupted: false,
    });
    expect(
      await sessions.recordContextUpdate(id, 0, {
        messages: [
          { role: 'system', content: 'M2: the guest is vegetarian.' },
          { role: 'assistant', content: 'M3: I noted that.' },
        ],
      }),
    ).toBe(true);
    expect(
      await sessions.recordContextUpdate(id, 0, { instructions: 'B: the kitchen closes at ten.' }),
    ).toBe(true);

    // The job is lost; the api hands the session to epoch 1. The lost job writes nothing more.
    expect(await store.claimHandover(id, 0)).toBe(true);
    expect(
      await sessions.recordContextUpdate(id, 0, {
        instructions: 'LOST',
        messages: [{ role: 'system', content: 'LOST' }],
      }),
    ).toBe(false);
    const resumed = await take(1);
    expect(resumed?.record.contextUpdate).toEqual({
      instructions: 'B: the kitchen closes at ten.',
      messages: [
        { role: 'system', content: 'M1: table 4 is booked.', afterTurns: 0 },
        { role: 'system', content: 'M2: the guest is vegetarian.', afterTurns: 1 },
        { role: 'assistant', content: 'M3: I noted that.', afterTurns: 1 },
      ],
    });
    // The resumed job's chat context is the lost job's: history, M1, the turn, M2, M3.
    const chatCtx = applicationChatContext(
      history,
      await conversationSoFar(sessions, id),
      resumed?.record.contextUpdate ?? null,
    );
    expect(
      chatCtx.items.map((item) =>
        item.type === 'message' ? { role: item.role, content: item.textContent } : item.type,
      ),
    ).toEqual([
      { role: 'user', content: 'I booked for two.' },
      { role: 'system', content: 'M1: table 4 is booked.' },
      { role: 'user', content: 'What is on the menu?' },
      { role: 'system', content: 'M2: the guest is vegetarian.' },
      { role: 'assistant', content: 'M3: I noted that.' },
    ]);

    // The resumed job's own updates build on them, for the job after it.
    expect(
      await sessions.recordContextUpdate(id, 1, {
        messages: [{ role: 'system', content: 'M4: dessert is on the house.' }],
      }),
    ).toBe(true);
    expect((await sessions.byId(id))?.contextUpdate).toEqual({
      instructions: 'B: the kitchen closes at ten.',
      messages: [
        { role: 'system', content: 'M1: table 4 is booked.', afterTurns: 0 },
        { role: 'system', content: 'M2: the guest is vegetarian.', afterTurns: 1 },
        { role: 'assistant', content: 'M3: I noted that.', afterTurns: 1 },
        { role: 'system', content: 'M4: dessert is on the house.', afterTurns: 1 },
      ],
    });

    // Once the session ended, nothing changes it.
    expect(await sessions.end(id, 'ended', 'user_left', undefined, 1)).toBe(true);
    expect(await sessions.recordContextUpdate(id, 1, { instructions: 'AFTER' })).toBe(false);
    expect((await sessions.byId(id))?.contextUpdate?.instructions).toBe(
      'B: the kitchen closes at ten.',
    );
  });
});
