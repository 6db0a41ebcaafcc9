// The api's hand-over of Agent sessions whose job stopped renewing its lease: a lapsed
// session is claimed once across api hosts (its epoch goes up by one) and its Agent is
// dispatched again to the same room (a real livekit-server lists the dispatch); the job of
// the old epoch can neither renew nor end it; one hand-over per lapse. A lapsed session
// whose end user left the room is ended instead, charged once what the lost job's lease
// covered. A web search the lost job made is stored with the session's usage as it is made
// (worker/agent-session/session-tool-billing.ts), so it is charged once by the session's end
// either way: by the sweep's, or by the resumed job's (its meter goes on from what the lost
// job stored, worker/agent-session/session-billing.ts). On both databases.

import { AgentDispatchClient, RoomServiceClient } from 'livekit-server-sdk';
import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { LivekitRooms, sessionRoom } from '../../../src/agent-sessions/livekit-rooms.ts';
import {
  SessionHandoverSweep,
  USER_LEFT_DURING_HANDOVER,
} from '../../../src/agent-sessions/session-handover.ts';
import { loadConfig } from '../../../src/app/config.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { SessionBilling } from '../../../worker/agent-session/session-billing.ts';
import { takeSession } from '../../../worker/agent-session/session-job.ts';
import { SessionToolBilling } from '../../../worker/agent-session/session-tool-billing.ts';
import { AgentSessionMeter } from '../../../worker/agent-session/usage.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { creditAccount } from '../../helpers/credit.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import { waitFor } from '../../helpers/wait.ts';

const LAPSE_MS = 3000;
const AGENT_NAME = 'handover-sweep-test';
const PRICES = { sessionMillicreditsPerMinute: 5000, sttMillicreditsPerMinute: 6000 };
const SEARCH_PRICE = 5000;
const silent = createLogger('silent');

/** The web-search billing of a session's job, as the worker builds it for its Agent's tools. */
function jobSearches(sessions: AgentSessions, sessionId: string, meter: AgentSessionMeter) {
  return new SessionToolBilling(
    async () => 1_000_000_000,
    meter,
    () => 0,
    { sessions, sessionId },
    silent,
  );
}

// One livekit-server for the file; a database per dialect, dropped when its suite ends.
describeEachDialect('Agent session hand-over on %s', (dialect) => {
  let handle: DatabaseHandle;
  let livekit: LivekitServer;
  const users: RoomClient[] = [];

  beforeAll(async ({ databases, livekit: started }) => {
    ({ handle } = await databases.get(dialect));
    livekit = started;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(users.map((u) => u.leave().catch(() => {})));
  });

  /** The api's side of hand-overs on a clock of the test's: sessions, rooms, two hosts. */
  async function sweepRig() {
    const ws = await seedWorkspace(handle);
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'handover');
    const clock = { now: new Date('2026-11-28T12:00:00.000Z').getTime() };
    const sessions = new AgentSessions(handle.db, {
      heartbeatTimeoutMs: 15_000,
      now: () => clock.now,
    });
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
        expiresAt: new Date(clock.now + 60 * 60_000),
      });
      await rooms.open(id, 600_000);
      return id;
    };
    /** The end user of session `id` joins its room (a hand-over is for them). */
    const userJoins = async (id: string) => {
      const client = await RoomClient.join(
        livekit.url,
        await rooms.userToken(id, { ttlSeconds: 600 }),
      );
      users.push(client);
      return client;
    };
    const hosts = [0, 1].map(
      () =>
        new SessionHandoverSweep({
          sessions,
          rooms,
          lapsedAfterMs: LAPSE_MS,
          maxDurationMs: 600_000,
          prices: PRICES,
          logger: createLogger('silent'),
          now: () => clock.now,
        }),
    );
    return { ws, sessions, rooms, open, userJoins, hosts, clock };
  }

  it('hands a lapsed session to a new job once, across api hosts, and fences off the old job', async () => {
    const { sessions, open, userJoins, hosts, clock } = await sweepRig();
    const lapsing = await open();
    const renewing = await open();
    const connecting = await open();
    await userJoins(lapsing);
    await userJoins(renewing);
    expect(await sessions.markActive(lapsing)).toBe(true);
    expect(await sessions.markActive(renewing)).toBe(true);
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
    clock.now += LAPSE_MS - 1000;
    expect(await sessions.renewLease(renewing, 0)).toBe(true);
    expect(await Promise.all(hosts.map((h) => h.sweep()))).toEqual([0, 0]);

    // Past it, the lapsed session is claimed once by the two hosts; the others stay.
    clock.now += 1001;
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
    clock.now += 10 * LAPSE_MS;
    expect(await sessions.renewLease(renewing, 0)).toBe(true);
    expect(await hosts[0]?.sweep()).toBe(0);

    // The old job is fenced off: it cannot renew or end the session; the new one can.
    expect(await sessions.renewLease(lapsing, 0)).toBe(false);
    expect(await sessions.end(lapsing, 'ended', 'user_left', undefined, 0)).toBe(false);
    expect(await sessions.renewLease(lapsing, 1)).toBe(true);

    // Lapsing again, it is handed over again, to epoch 2.
    clock.now += 1;
    expect(await hosts[1]?.sweep()).toBe(0);
    clock.now += LAPSE_MS;
    expect(await sessions.renewLease(renewing, 0)).toBe(true);
    expect(await hosts[1]?.sweep()).toBe(1);
    expect(await epochOf(lapsing)).toBe(2);
    expect(await sessions.end(lapsing, 'ended', 'user_left', undefined, 1)).toBe(false);
    expect(await sessions.end(lapsing, 'ended', 'user_left', undefined, 2)).toBe(true);
    // An ended session is nobody's to hand over; the one that stopped renewing is.
    clock.now += 10 * LAPSE_MS;
    expect(await hosts[0]?.sweep()).toBe(1);
    expect(await epochOf(renewing)).toBe(1);
  }, 60_000);

  it('ends a lapsed session whose end user left, charging once what the lost lease covered', async () => {
    const { ws, sessions, open, userJoins, hosts, clock } = await sweepRig();
    const id = await open();
    const user = await userJoins(id);
    const startedAt = clock.now;
    expect(await sessions.markActive(id)).toBe(true);
    // The job ran 90 s (its last renewal), transcribed 20 s, spent 57 mc on the model and
    // made one web search.
    await sessions.addUsage(id, { sttMs: 20_000, llmMillicredits: 57 });
    const meter = new AgentSessionMeter({ sessionCreditsPerMinute: 5, sttCreditsPerMinute: 6 });
    await jobSearches(sessions, id, meter).webSearchMade(SEARCH_PRICE);
    clock.now += 90_000;
    expect(await sessions.renewLease(id, 0)).toBe(true);
    await user.leave();
    const roomService = new RoomServiceClient(livekit.httpUrl, livekit.apiKey, livekit.apiSecret);
    await waitFor(async () => (await roomService.listParticipants(sessionRoom(id))).length === 0, {
      what: 'the user to be gone from the room',
    });
    const before = await creditAccount(handle, ws.workspaceId);

    // The job is lost after the user left: nobody to resume it for.
    clock.now += LAPSE_MS + 1;
    expect(await Promise.all(hosts.map((h) => h.sweep()))).toEqual([0, 0]);
    const row = await handle.db
      .selectFrom('agent_sessions')
      .select([
        'state',
        'end_reason',
        'ended_at',
        'session_ms',
        'charged_millicredits',
        'job_epoch',
      ])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // 90 s at 5,000 mc/min + 20 s at 6,000 mc/min + 57 mc + one search = 7,500 + 2,000 + 57
    // + 5,000.
    expect({
      ...row,
      job_epoch: Number(row.job_epoch),
      session_ms: Number(row.session_ms),
    }).toEqual({
      state: 'ended',
      end_reason: USER_LEFT_DURING_HANDOVER,
      ended_at: new Date(startedAt + 90_000 + LAPSE_MS + 1).toISOString(),
      session_ms: 90_000,
      charged_millicredits: 14_557,
      job_epoch: 0,
    });
    expect((await creditAccount(handle, ws.workspaceId)).balance).toBe(before.balance - 14_557);
    // No new job was sent to the empty room, and the room is gone.
    const dispatches = new AgentDispatchClient(livekit.httpUrl, livekit.apiKey, livekit.apiSecret);
    expect(
      (await dispatches.listDispatch(sessionRoom(id)).catch(() => []))
        .filter((d) => d.agentName === AGENT_NAME)
        .map((d) => JSON.parse(d.metadata).resume_epoch),
    ).not.toContain(1);
    expect(await roomService.listRooms([sessionRoom(id)])).toEqual([]);
    expect(await sessions.usageSoFar(id)).toEqual({
      sttMs: 20_000,
      llmMillicredits: 57,
      webSearches: 1,
      webSearchMillicredits: SEARCH_PRICE,
    });

    // Charged once: later sweeps and the lost job's own end change nothing.
    clock.now += 10 * LAPSE_MS;
    expect(await hosts[0]?.sweep()).toBe(0);
    expect(await sessions.end(id, 'ended', 'user_left', { sessionMs: 1, millicredits: 1 }, 0)).toBe(
      false,
    );
    expect((await creditAccount(handle, ws.workspaceId)).balance).toBe(before.balance - 14_557);
  }, 60_000);

  it("charges the lost job's web search once when the resumed job ends the session", async () => {
    const { ws, sessions, open, clock } = await sweepRig();
    const id = await open();
    // Session time free here: the jobs' own clocks run in real time, the rig's is fixed.
    const config = loadConfig({
      DATA_DIR: '/nonexistent',
      PRICE_AGENT_SESSION_CREDITS_PER_MINUTE: '0',
      PRICE_STT_CREDITS_PER_MINUTE: '6',
    });
    const take = (resumeEpoch: number | undefined) =>
      takeSession(sessions, { sessionId: id, maxDurationMs: undefined, resumeEpoch });
    const before = await creditAccount(handle, ws.workspaceId);

    // The first job transcribes 20 s and makes one web search; then it is lost.
    const lost = await take(undefined);
    if (!lost) throw new Error('the first job did not take the session');
    const lostBilling = await SessionBilling.open(lost, { config, sessions }, silent);
    lostBilling.meter.transcribed(20_000);
    await sessions.addUsage(id, { sttMs: 20_000 });
    await jobSearches(sessions, id, lostBilling.meter).webSearchMade(SEARCH_PRICE);
    clock.now += LAPSE_MS + 1;
    expect(await sessions.claimHandover(id, 0)).toBe(true);

    // The resumed job goes on from what the lost one stored, makes a search of its own and
    // ends the session: 20 s at 6,000 mc/min + two searches = 2,000 + 10,000.
    const resumed = await take(1);
    expect(resumed).toMatchObject({ epoch: 1, resumed: true });
    if (!resumed) throw new Error('the resumed job did not take the session');
    const billing = await SessionBilling.open(resumed, { config, sessions }, silent);
    expect(billing.meter.webSearches).toEqual({ count: 1, millicredits: SEARCH_PRICE });
    await jobSearches(sessions, id, billing.meter).webSearchMade(SEARCH_PRICE);
    await billing.finish('ended', 'user_left');
    const row = await handle.db
      .selectFrom('agent_sessions')
      .select(['state', 'charged_millicredits', 'web_searches', 'web_search_millicredits'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect({
      state: row.state,
      charged: Number(row.charged_millicredits),
      searches: Number(row.web_searches),
      searchMillicredits: Number(row.web_search_millicredits),
    }).toEqual({ state: 'ended', charged: 12_000, searches: 2, searchMillicredits: 10_000 });
    expect((await creditAccount(handle, ws.workspaceId)).balance).toBe(before.balance - 12_000);

    // Charged once: the lost job's own end changes nothing.
    await lostBilling.finish('ended', 'user_left');
    expect((await creditAccount(handle, ws.workspaceId)).balance).toBe(before.balance - 12_000);
  }, 60_000);
});
