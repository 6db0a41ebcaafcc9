// The one sweep of rows that dead processes left open, on both databases. The heartbeat
// table itself has the two columns the filter reads (`instance_id` and a creation time),
// so it stands in for the ledgers' tables here.
import { closeRowsOfDeadProcesses } from '../../../src/billing/abandoned-rows.ts';
import { type DatabaseHandle, openDatabase } from '../../../src/db/connect.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';

const NOW = Date.now();
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const LIFE = { instanceId: 'api@self:1', startedAt: at(30_000) };

describeEachDialect('closeRowsOfDeadProcesses on %s', (dialect) => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    testDb = await databases.empty(dialect);
    handle = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
    await handle.db
      .insertInto('service_instances')
      .values([
        // A previous life of this instance id, and this life.
        { instance_id: 'api@self:1', started_at: at(120_000), last_seen_at: at(1_000) },
        // A peer silent for 2 minutes that started after this process: dead all the same.
        { instance_id: 'api@dead:1', started_at: at(10_000), last_seen_at: at(120_000) },
        // A peer seen a second ago.
        { instance_id: 'api@live:1', started_at: at(300_000), last_seen_at: at(1_000) },
      ])
      .execute();
  });
  afterAll(async () => {
    await handle.close();
  });

  it('finds the rows of earlier lives and silent peers, and counts those it closed', async () => {
    const found: string[][] = [];
    const closed = await closeRowsOfDeadProcesses({
      db: handle.db,
      life: LIFE,
      staleAfterMs: 60_000,
      createdColumn: 'started_at',
      find: async (leftByDeadProcess) => {
        const rows = await handle.db
          .selectFrom('service_instances')
          .select('instance_id')
          .where(leftByDeadProcess)
          .orderBy('instance_id')
          .execute();
        found.push(rows.map((row) => row.instance_id));
        return rows;
      },
      // Another sweeper closed the dead peer's row first.
      close: async (row) => row.instance_id !== 'api@dead:1',
    });
    expect(found).toEqual([['api@dead:1', 'api@self:1']]);
    expect(closed).toBe(1);
  });

  it('leaves this life alone', async () => {
    const later = { instanceId: 'api@self:1', startedAt: at(200_000) };
    const closed = await closeRowsOfDeadProcesses({
      db: handle.db,
      life: later,
      staleAfterMs: 60_000,
      createdColumn: 'started_at',
      find: (leftByDeadProcess) =>
        handle.db
          .selectFrom('service_instances')
          .select('instance_id')
          .where(leftByDeadProcess)
          .execute(),
      close: async () => true,
    });
    // Only the silent peer: this instance id's row is of this life.
    expect(closed).toBe(1);
  });
});
