// The jobs process's sweep fails running sessions whose worker went silent, by the rule a
// report applies on read, so each gets its `agent_session.ended` webhook event without
// anyone reading it; sessions still heard from stay, on both databases.

import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { LostAgentSessionSweep } from '../../../src/jobs/lost-agent-sessions.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { SecretBox } from '../../../src/secrets/secret-box.ts';
import { WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

const TIMEOUT_MS = 15_000;

describeEachDialect('lost live sessions on %s', (dialect) => {
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ handle } = await databases.get(dialect));
  });

  it('fails sessions silent past the timeout, each once, with their ended event', async () => {
    const ws = await seedWorkspace(handle);
    const scope = { workspaceId: ws.workspaceId, environment: 'production' as const };
    const { endpoint } = await new WebhookEndpoints(
      handle.db,
      new SecretBox('l'.repeat(32)),
    ).create(scope, { url: 'https://hooks.example.com/', events: ['agent_session.ended'] });
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'lost');
    let now = new Date('2026-11-26T12:00:00.000Z').getTime();
    const sessions = new AgentSessions(handle.db, {
      heartbeatTimeoutMs: TIMEOUT_MS,
      now: () => now,
    });
    const open = async (state: 'connecting' | 'active', silentMs: number) => {
      const id = uuidv7();
      await sessions.create({
        id,
        snapshot,
        apiKeyId: ws.productionKeyId,
        endUserId: undefined,
        room: `agent-session-${id}`,
        overrides: undefined,
        sessionContext: undefined,
        expiresAt: new Date(now + 60 * 60_000),
      });
      const at = new Date(now - silentMs).toISOString();
      await handle.db
        .updateTable('agent_sessions')
        .set(
          state === 'active'
            ? { state, started_at: at, heartbeat_at: at, created_at: at }
            : { created_at: at },
        )
        .where('id', '=', id)
        .execute();
      return id;
    };
    const lost = [
      await open('active', TIMEOUT_MS + 1),
      await open('connecting', 2 * TIMEOUT_MS + 1),
    ];
    const alive = [
      await open('active', TIMEOUT_MS - 1),
      await open('connecting', 2 * TIMEOUT_MS - 1),
    ];
    const sweep = new LostAgentSessionSweep({
      sessions,
      intervalMs: 1_000,
      logger: createLogger('silent'),
    });

    // Two sweeps at once fail each lost session once.
    expect((await Promise.all([sweep.sweep(), sweep.sweep()])).reduce((a, b) => a + b)).toBe(2);
    const states = async (ids: string[]) =>
      (
        await handle.db
          .selectFrom('agent_sessions')
          .select(['id', 'state', 'end_reason'])
          .where('id', 'in', ids)
          .execute()
      ).sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
    expect(await states(lost)).toEqual(
      lost.map((id) => ({ id, state: 'failed', end_reason: 'worker_lost' })),
    );
    expect((await states(alive)).map((row) => row.state)).toEqual(['active', 'connecting']);
    const events = await handle.db
      .selectFrom('webhook_deliveries')
      .select(['payload'])
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(
      events
        .map((row) => JSON.parse(row.payload).data)
        .map((d) => [d.session_id, d.state, d.end_reason])
        .sort(),
    ).toEqual(lost.map((id) => [id, 'failed', 'worker_lost']).sort());

    // Two milliseconds on, the other two are past their allowance too.
    now += 2;
    expect(await sweep.sweep()).toBe(2);
    expect(await sweep.sweep()).toBe(0);
  });
});
