// One endpoint whose receiver hangs holds at most `maxPerEndpoint` of the dispatcher's slots:
// another endpoint's event is delivered while the hanging one's requests are still open, and
// the hanging one never has more requests open at once, on both databases.

import type { ServerResponse } from 'node:http';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { SecretBox } from '../../../src/secrets/secret-box.ts';
import { WebhookDispatcher } from '../../../src/webhooks/dispatcher.ts';
import { WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { emitTestEvent } from '../../../src/webhooks/outbox.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.ts';

describeEachDialect('webhook dispatch fairness on %s', (dialect) => {
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ handle } = await databases.get(dialect));
  });

  it('keeps delivering to other endpoints while one receiver hangs', async () => {
    const scope = {
      workspaceId: (await seedWorkspace(handle)).workspaceId,
      environment: 'production' as const,
    };
    const endpoints = new WebhookEndpoints(handle.db, new SecretBox('f'.repeat(32)));
    const hanging = await startWebhookReceiver();
    const healthy = await startWebhookReceiver();
    // The hanging receiver keeps every response open until released, and counts how many
    // it holds at once.
    const held: ServerResponse[] = [];
    let mostHeld = 0;
    hanging.answer = (_hit, res) => {
      held.push(res);
      mostHeld = Math.max(mostHeld, held.length);
    };
    const slow = await endpoints.create(scope, {
      url: hanging.url(),
      events: ['agent_session.ended'],
    });
    const fine = await endpoints.create(scope, {
      url: healthy.url(),
      events: ['agent_session.ended'],
    });
    const now = new Date();
    for (let i = 0; i < 12; i++) await emitTestEvent(handle.db, scope, slow.endpoint.id, now);
    const dispatcher = new WebhookDispatcher({
      db: handle.db,
      endpoints,
      logger: createLogger('silent'),
      retryDelaysMs: [100],
      timeoutMs: 60_000,
      pollIntervalMs: 20,
      allowPrivateNetworks: true,
      maxInFlight: 8,
      maxPerEndpoint: 3,
    });
    dispatcher.start();
    try {
      await waitFor(() => held.length === 3, { what: 'three held requests' });
      const delivery = await emitTestEvent(handle.db, scope, fine.endpoint.id, new Date());
      await waitFor(() => healthy.hits.length === 1, { what: 'the healthy endpoint’s event' });
      const row = await waitFor(
        () =>
          handle.db
            .selectFrom('webhook_deliveries')
            .select(['state', 'attempts'])
            .where('id', '=', delivery)
            .where('state', '=', 'delivered')
            .executeTakeFirst(),
        { what: 'the delivered row' },
      );
      expect(row).toEqual({ state: 'delivered', attempts: 1 });
      // Still only three of the hanging endpoint's twelve have been sent.
      expect(hanging.hits.length).toBe(3);
      expect(held.length).toBe(3);

      // Released, the hanging endpoint's deliveries all go through, never more than three
      // at once.
      let open = 0;
      let mostOpen = 0;
      hanging.answer = (_hit, res) => {
        open++;
        mostOpen = Math.max(mostOpen, open);
        setTimeout(() => {
          open--;
          res.end('ok');
        }, 30);
      };
      for (const res of held.splice(0)) res.end('ok');
      await waitFor(
        async () => {
          const rows = await handle.db
            .selectFrom('webhook_deliveries')
            .select('state')
            .where('endpoint_id', '=', slow.endpoint.id)
            .execute();
          return rows.length === 12 && rows.every((r) => r.state === 'delivered');
        },
        { what: 'the hanging endpoint’s twelve deliveries' },
      );
      expect(hanging.hits.length).toBe(12);
      expect(mostHeld).toBe(3);
      expect(mostOpen).toBeGreaterThan(0);
      expect(mostOpen).toBeLessThanOrEqual(3);
    } finally {
      for (const res of held.splice(0)) res.end('ok');
      await dispatcher.close();
      await hanging.close();
      await healthy.close();
    }
  });
});
