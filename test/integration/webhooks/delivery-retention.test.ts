// Webhook deliveries that ended longer ago than WEBHOOK_DELIVERY_RETENTION_DAYS are deleted
// by the jobs process's sweep, with the bodies they sent, on both databases; pending ones
// and recent ones stay.

import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { WebhookDeliveryState } from '../../../src/db/schema.ts';
import { RetentionSweep } from '../../../src/jobs/retention-sweep.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { SecretBox } from '../../../src/secrets/secret-box.ts';
import { expireDeliveriesBefore } from '../../../src/webhooks/deliveries.ts';
import { WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { emitTestEvent } from '../../../src/webhooks/outbox.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

const DAY_MS = 24 * 60 * 60_000;
const NOW = new Date('2026-11-26T12:00:00.000Z');

describeEachDialect('webhook delivery retention on %s', (dialect) => {
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ handle } = await databases.get(dialect));
  });

  it('deletes ended deliveries older than the period, in batches, each once', async () => {
    const ws = await seedWorkspace(handle);
    const scope = { workspaceId: ws.workspaceId, environment: 'production' as const };
    const { endpoint } = await new WebhookEndpoints(
      handle.db,
      new SecretBox('r'.repeat(32)),
    ).create(scope, { url: 'https://hooks.example.com/', events: ['agent_session.ended'] });
    // A delivery made `daysAgo` days before NOW, in `state`.
    const delivery = async (daysAgo: number, state: WebhookDeliveryState) => {
      const id = await emitTestEvent(handle.db, scope, endpoint.id, NOW);
      await handle.db
        .updateTable('webhook_deliveries')
        .set({
          state,
          created_at: new Date(NOW.getTime() - daysAgo * DAY_MS).toISOString(),
          next_attempt_at: state === 'pending' ? NOW.toISOString() : null,
        })
        .where('id', '=', id)
        .execute();
      return id;
    };
    const old = [
      await delivery(31, 'delivered'),
      await delivery(40, 'failed'),
      await delivery(50, 'delivered'),
      await delivery(60, 'failed'),
      await delivery(90, 'delivered'),
    ];
    const kept = [
      await delivery(45, 'pending'),
      await delivery(29, 'delivered'),
      await delivery(1, 'failed'),
    ];
    const sweep = (now: Date) =>
      new RetentionSweep({
        expireBefore: (cutoff, limit) => expireDeliveriesBefore(handle.db, cutoff, limit),
        retentionDays: 30,
        what: 'webhook deliveries',
        logger: createLogger('silent'),
        batch: 2,
        now: () => now,
      });
    const remaining = async () =>
      (
        await handle.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', endpoint.id)
          .execute()
      )
        .map((row) => row.id)
        .sort();

    // Five old ones in batches of two: three batches, the last one short.
    expect(await sweep(NOW).sweep()).toBe(old.length);
    expect(await remaining()).toEqual([...kept].sort());
    expect(await sweep(NOW).sweep()).toBe(0);
    // Two days on, the 29-day-old delivered one is past the period; two sweepers delete it
    // once, and the pending one, older still, stays.
    const later = new Date(NOW.getTime() + 2 * DAY_MS);
    expect((await Promise.all([sweep(later).sweep(), sweep(later).sweep()])).sort()).toEqual([
      0, 1,
    ]);
    expect(await remaining()).toEqual([kept[0], kept[2]].sort());
  });
});
