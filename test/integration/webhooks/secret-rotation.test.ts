// A rotated webhook secret keeps signing beside the new one for a day, and rotating again
// drops it at once, on both databases.

import { SecretBox } from '../../../src/secrets/secret-box.ts';
import { PREVIOUS_SECRET_GRACE_MS, WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

describeEachDialect('webhook secret rotation on %s', () => {
  it('signs with the new and the previous secret for a day, then with the new one only', async ({
    handle,
  }) => {
    let now = new Date('2026-11-26T12:00:00.000Z');
    const endpoints = new WebhookEndpoints(handle.db, new SecretBox('s'.repeat(32)), () => now);
    const scope = {
      workspaceId: (await seedWorkspace(handle)).workspaceId,
      environment: 'production' as const,
    };
    const { endpoint, secret: first } = await endpoints.create(scope, {
      url: 'https://hooks.example.com/',
      events: ['agent_session.ended'],
    });
    expect((await endpoints.target(endpoint.id))?.secrets).toEqual([first]);

    const second = await endpoints.rotateSecret(scope, endpoint.id);
    expect(second).not.toBe(first);
    expect((await endpoints.target(endpoint.id))?.secrets).toEqual([second, first]);
    // The previous one is sealed like the current one, never stored in plain text.
    const row = await handle.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(first.slice('whsec_'.length));
    expect(JSON.stringify(row)).not.toContain(second.slice('whsec_'.length));

    now = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS - 1);
    expect((await endpoints.target(endpoint.id))?.secrets).toEqual([second, first]);
    now = new Date(now.getTime() + 1);
    expect((await endpoints.target(endpoint.id))?.secrets).toEqual([second]);

    // A leaked secret: rotating twice in a row leaves only the newest two, not the leaked one.
    const third = await endpoints.rotateSecret(scope, endpoint.id);
    const fourth = await endpoints.rotateSecret(scope, endpoint.id);
    expect((await endpoints.target(endpoint.id))?.secrets).toEqual([fourth, third]);
  });
});
