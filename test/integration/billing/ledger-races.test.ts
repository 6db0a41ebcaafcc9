import { v7 as uuidv7 } from 'uuid';
import { Ledger, type LedgerStart } from '../../../src/billing/ledger.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { ApiError } from '../../../src/errors.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { creditAccount } from '../../helpers/credit.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';

/** 10 credits per 1,000 characters: 100 characters reserve 1,000 millicredits. */
const PRICE = 10_000;
const SEED_CREDITS = 1000;
const SEEDED = SEED_CREDITS * 1000;

function entry(workspaceId: string, reserveChars: number): LedgerStart {
  return {
    requestId: uuidv7(),
    auditId: `aud_${uuidv7()}`,
    workspaceId,
    environment: 'production',
    apiKeyId: null,
    transport: 'websocket',
    voiceId: 'voice_test',
    route: 'native:test',
    outputFormat: 'pcm_24000',
    reserveChars,
    millicreditsPer1kChars: PRICE,
    passThrough: false,
  };
}

const cancelled = {
  status: 'cancelled' as const,
  charsSynthesized: 0,
  providerAudioMs: 0,
  encodedDurationMs: 0,
};

describeEachDialect('ledger closers and reservations racing on %s', (dialect) => {
  let database: TestDatabase;
  let first: DatabaseHandle;
  /**
   * A second connection pool, as a second process has. SQLite keeps one connection per
   * process (a second one in this process would wait for the first inside a synchronous
   * busy loop that also stops the first from finishing), so there both ledgers share it.
   */
  let second: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ database, handle: first } = await databases.get(dialect));
    second = dialect === 'postgres' ? await openTestDatabase(database) : first;
  });

  afterAll(async () => {
    if (second !== first) await second?.close();
  });

  it('refunds a request once when two closers finish it at the same time', async () => {
    const ws = await seedWorkspace(first, { credits: SEED_CREDITS });
    const a = new Ledger(first.db, 'closer-a');
    const b = new Ledger(second.db, 'closer-b');
    const starts = Array.from({ length: 20 }, () => entry(ws.workspaceId, 100));
    for (const start of starts) await a.start(start);
    const done = { ...cancelled, status: 'succeeded' as const, charsSynthesized: 50 };
    const costs = await Promise.all(
      starts.flatMap((s) => [a.finish(s.requestId, done), b.finish(s.requestId, done)]),
    );
    // Each closer reports the charge of the row, whoever closed it.
    expect(costs).toEqual(costs.map(() => 500));
    expect(await creditAccount(first, ws.workspaceId)).toEqual({
      balance: SEEDED - 20 * 500,
      charged: 20 * 500,
      open: 0,
      openRows: 0,
    });
  });

  it('never loses a reservation that races the close of its request', async () => {
    const ws = await seedWorkspace(first, { credits: SEED_CREDITS });
    const a = new Ledger(first.db, 'reserver');
    const b = new Ledger(second.db, 'closer');
    const starts = Array.from({ length: 30 }, () => entry(ws.workspaceId, 0));
    for (const start of starts) await a.start(start);
    const outcomes = await Promise.all(
      starts.flatMap((s) => [
        a.reserveMore(s.requestId, ws.workspaceId, 100).then(
          () => 'reserved',
          (error: unknown) => {
            // A reservation arriving after the close is refused, never debited.
            expect(error).toBeInstanceOf(ApiError);
            return 'refused';
          },
        ),
        b.finish(s.requestId, cancelled).then(() => 'closed'),
      ]),
    );
    expect(outcomes.filter((o) => o === 'closed')).toHaveLength(30);
    expect(await creditAccount(first, ws.workspaceId)).toEqual({
      balance: SEEDED,
      charged: 0,
      open: 0,
      openRows: 0,
    });
  });

  it('lets two sweepers close the rows of a dead process once', async () => {
    const ws = await seedWorkspace(first, { credits: SEED_CREDITS });
    const dead = new Ledger(first.db, `dead-${uuidv7()}`);
    const starts = Array.from({ length: 20 }, () => entry(ws.workspaceId, 100));
    for (const start of starts) await dead.start(start);
    expect((await creditAccount(first, ws.workspaceId)).open).toBe(20 * 1000);
    const closed = await Promise.all([
      new Ledger(first.db, 'sweeper-a').closeAbandoned(60_000),
      new Ledger(second.db, 'sweeper-b').closeAbandoned(60_000),
    ]);
    expect(closed[0] + closed[1]).toBe(20);
    expect(await creditAccount(first, ws.workspaceId)).toEqual({
      balance: SEEDED,
      charged: 0,
      open: 0,
      openRows: 0,
    });
  });

  it('closes the rows of a peer that died after the sweeper started, and only those', async () => {
    const ws = await seedWorkspace(first, { credits: SEED_CREDITS });
    const sweeper = new Ledger(first.db, `sweeper-${uuidv7()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The peer started after the sweeper, opened a request, then its heartbeat stopped.
    const deadId = `dead-peer-${uuidv7()}`;
    const liveId = `live-peer-${uuidv7()}`;
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
    const now = new Date().toISOString();
    await first.db
      .insertInto('service_instances')
      .values([
        { instance_id: deadId, started_at: now, last_seen_at: twoMinutesAgo },
        { instance_id: liveId, started_at: now, last_seen_at: now },
      ])
      .execute();
    const deadRow = entry(ws.workspaceId, 100);
    const liveRow = entry(ws.workspaceId, 100);
    const ownRow = entry(ws.workspaceId, 100);
    await new Ledger(first.db, deadId).start(deadRow);
    await new Ledger(first.db, liveId).start(liveRow);
    await sweeper.start(ownRow);

    expect(await sweeper.closeAbandoned(60_000)).toBe(1);
    const rows = await first.db
      .selectFrom('synthesis_requests')
      .select(['request_id', 'status', 'error_code'])
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    const status = Object.fromEntries(rows.map((r) => [r.request_id, r.status]));
    expect(status).toEqual({
      [deadRow.requestId]: 'failed',
      [liveRow.requestId]: 'started',
      [ownRow.requestId]: 'started',
    });
    expect(await creditAccount(first, ws.workspaceId)).toEqual({
      balance: SEEDED - 2000,
      charged: 0,
      open: 2000,
      openRows: 2,
    });
  });
});
