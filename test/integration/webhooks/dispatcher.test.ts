// The webhook dispatcher against a real HTTP receiver, on both databases: what the receiver
// gets (body, headers, signature), how attempts are retried and recorded, and what is never
// sent.

import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { TenantScope } from '../../../src/db/tenant-scope.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { SecretBox } from '../../../src/secrets/secret-box.ts';
import {
  WebhookDispatcher,
  type WebhookDispatcherOptions,
} from '../../../src/webhooks/dispatcher.ts';
import { WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { emitTestEvent, emitWebhookEvent } from '../../../src/webhooks/outbox.ts';
import { afterEach, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import { waitFor, within } from '../../helpers/wait.ts';
import {
  type WebhookHit as Hit,
  startWebhookReceiver as startReceiver,
} from '../../helpers/webhook-receiver.ts';

const box = new SecretBox('a test deployment secrets key of 32+ characters');

describeEachDialect('webhook dispatcher on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let endpoints: WebhookEndpoints;
  const cleanup: (() => Promise<void>)[] = [];

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
    endpoints = new WebhookEndpoints(handle.db, box);
  });
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    await handle.db.deleteFrom('webhook_deliveries').execute();
  });

  const receiver = async () => {
    const started = await startReceiver();
    cleanup.push(started.close);
    return started;
  };
  const dispatcher = (options: Partial<WebhookDispatcherOptions> = {}) => {
    const started = new WebhookDispatcher({
      db: handle.db,
      endpoints,
      logger: createLogger('silent'),
      retryDelaysMs: [100, 200],
      timeoutMs: 5000,
      pollIntervalMs: 20,
      allowPrivateNetworks: true,
      ...options,
    });
    started.start();
    cleanup.push(() => started.close());
    return started;
  };
  const production = async (): Promise<TenantScope> => ({
    workspaceId: (await seedWorkspace(handle)).workspaceId,
    environment: 'production',
  });
  const endpoint = async (scope: TenantScope, url: string, events = ['agent_session.ended']) =>
    endpoints.create(scope, { url, events });
  const emit = (scope: TenantScope, data: unknown = { session_id: 'ses_1', note: 'héllo ✓' }) =>
    emitWebhookEvent(handle.db, scope, {
      type: 'agent_session.ended',
      data: () => data,
      timestamp: new Date().toISOString(),
    });
  const rowById = (id: string) =>
    handle.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const rowOf = (endpointId: string) =>
    handle.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirstOrThrow();
  const settled = (endpointId: string, state: 'delivered' | 'failed') =>
    waitFor(async () => ((await rowOf(endpointId)).state === state ? rowOf(endpointId) : false), {
      what: `the delivery to ${endpointId} to be ${state}`,
    });
  const hmac = (secret: string, hit: Hit) =>
    `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${hit.headers['webhook-id']}.${hit.headers['webhook-timestamp']}.`)
      .update(hit.body)
      .digest('base64')}`;
  /** The library accepts the request under `secret`, and one of its signatures is ours. */
  const verifies = (secret: string, hit: Hit) => {
    try {
      new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
      return String(hit.headers['webhook-signature']).split(' ').includes(hmac(secret, hit));
    } catch {
      return false;
    }
  };

  it('POSTs the stored body byte for byte, signed per Standard Webhooks, and records the delivery', async () => {
    const hooks = await receiver();
    const scope = await production();
    const { endpoint: created, secret } = await endpoint(scope, hooks.url());
    expect(await emit(scope)).toBe(1);
    const stored = await rowOf(created.id);
    const beforeS = Math.floor(Date.now() / 1000);
    dispatcher();
    const row = await settled(created.id, 'delivered');
    const afterS = Math.ceil(Date.now() / 1000);

    expect(hooks.hits).toHaveLength(1);
    const hit = hooks.hits[0] as Hit;
    expect(hit.path).toBe('/hook');
    expect(hit.body.equals(Buffer.from(stored.payload, 'utf8'))).toBe(true);
    expect(hit.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'awp-webhooks/1',
      'webhook-id': expect.stringMatching(/^evt_/),
      'webhook-signature': hmac(secret, hit),
    });
    expect(hit.headers['webhook-id']).toBe(stored.event_id);
    const timestamp = Number(hit.headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(beforeS);
    expect(timestamp).toBeLessThanOrEqual(afterS);
    expect(new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).toEqual(
      JSON.parse(stored.payload),
    );
    expect(row).toMatchObject({
      state: 'delivered',
      attempts: 1,
      next_attempt_at: null,
      locked_until: null,
      last_status: 200,
      last_error: null,
      delivered_at: expect.any(String),
      last_attempt_at: expect.any(String),
      last_duration_ms: expect.any(Number),
    });
  });

  it('retries a failing receiver with the same event and body until it answers 2xx', async () => {
    const hooks = await receiver();
    const scope = await production();
    const { endpoint: created, secret } = await endpoint(scope, hooks.url());
    const seenBetween: unknown[] = [];
    hooks.answer = async (_hit, res, index) => {
      // What the delivery says while the next attempt is in flight.
      const row = await rowOf(created.id);
      seenBetween.push([row.state, row.attempts, row.last_status, row.last_error]);
      res.statusCode = index < 2 ? 500 : 200;
      res.end();
    };
    await emit(scope);
    dispatcher();
    const row = await settled(created.id, 'delivered');

    expect(hooks.hits).toHaveLength(3);
    expect(new Set(hooks.hits.map((hit) => hit.headers['webhook-id']))).toEqual(
      new Set([row.event_id]),
    );
    for (const hit of hooks.hits) {
      expect(hit.body.equals(Buffer.from(row.payload))).toBe(true);
      expect(verifies(secret, hit)).toBe(true);
    }
    const [first, second, third] = hooks.hits.map((hit) => hit.receivedAtMs) as number[];
    expect((second as number) - (first as number)).toBeGreaterThanOrEqual(100);
    expect((third as number) - (second as number)).toBeGreaterThanOrEqual(200);
    expect(seenBetween).toEqual([
      ['pending', 0, null, null],
      ['pending', 1, 500, 'HTTP 500'],
      ['pending', 2, 500, 'HTTP 500'],
    ]);
    expect(row).toMatchObject({
      state: 'delivered',
      attempts: 3,
      last_status: 200,
      last_error: null,
    });
  });

  it.each([
    [500, 'HTTP 500'],
    [302, 'HTTP 302 (redirects are not followed)'],
  ])(
    'fails a delivery answered %i on every attempt, one more than there are retry delays',
    async (status, error) => {
      const hooks = await receiver();
      hooks.answer = (_hit, res) => {
        res.writeHead(status, { location: hooks.url('/elsewhere') });
        res.end('no');
      };
      const scope = await production();
      const { endpoint: created } = await endpoint(scope, hooks.url());
      await emit(scope);
      const running = dispatcher();
      const row = await settled(created.id, 'failed');
      await running.close();

      // A redirect is not followed.
      expect(hooks.hits.map((hit) => hit.path)).toEqual(['/hook', '/hook', '/hook']);
      expect(row).toMatchObject({
        state: 'failed',
        attempts: 3,
        next_attempt_at: null,
        locked_until: null,
        delivered_at: null,
        last_status: status,
        last_error: error,
      });
    },
  );

  it('gives up on a receiver that never answers after the timeout', async () => {
    const hooks = await receiver();
    hooks.answer = () => {};
    const scope = await production();
    const { endpoint: created } = await endpoint(scope, hooks.url());
    await emit(scope);
    dispatcher({ timeoutMs: 300, retryDelaysMs: [50] });
    const row = await settled(created.id, 'failed');

    expect(hooks.hits).toHaveLength(2);
    expect(row).toMatchObject({
      attempts: 2,
      last_status: null,
      last_error: 'timed out after 300 ms',
    });
    expect(row.last_duration_ms).toBeGreaterThanOrEqual(299);
  });

  it('records a refused connection', async () => {
    const closed = await startReceiver();
    await closed.close();
    const scope = await production();
    const { endpoint: created } = await endpoint(scope, closed.url());
    await emit(scope);
    dispatcher({ retryDelaysMs: [] });
    const row = await settled(created.id, 'failed');
    expect(row).toMatchObject({
      attempts: 1,
      last_status: null,
      last_error: 'connect ECONNREFUSED',
    });
  });

  it('signs a retry with the secret the endpoint has then, and the previous one beside it', async () => {
    const hooks = await receiver();
    const scope = await production();
    const { endpoint: created, secret: oldSecret } = await endpoint(scope, hooks.url());
    let newSecret = '';
    hooks.answer = async (_hit, res, index) => {
      if (index === 0) newSecret = await endpoints.rotateSecret(scope, created.id);
      res.statusCode = index === 0 ? 500 : 204;
      res.end();
    };
    await emit(scope);
    dispatcher();
    await settled(created.id, 'delivered');

    const [first, second] = hooks.hits as [Hit, Hit];
    expect(hooks.hits).toHaveLength(2);
    expect([verifies(oldSecret, first), verifies(newSecret, first)]).toEqual([true, false]);
    expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(1);
    // Within a day of the rotation, both secrets sign: the new one first.
    expect([verifies(oldSecret, second), verifies(newSecret, second)]).toEqual([true, true]);
    expect(String(second.headers['webhook-signature']).split(' ')).toEqual([
      hmac(newSecret, second),
      hmac(oldSecret, second),
    ]);
  });

  it('holds a disabled endpoint’s events until it is enabled again, but sends it test events', async () => {
    const hooks = await receiver();
    const scope = await production();
    const { endpoint: paused, secret } = await endpoint(scope, hooks.url('/paused'));
    const { endpoint: live } = await endpoint(scope, hooks.url('/live'));
    await emit(scope, { n: 1 });
    await endpoints.update(scope, paused.id, { enabled: false });
    const held = await rowOf(paused.id);
    dispatcher();
    await settled(live.id, 'delivered');
    // A test event, due after the held one, is sent to the disabled endpoint all the same.
    await emitTestEvent(handle.db, scope, paused.id, new Date());
    const tested = await waitFor(() => hooks.hits[1], { what: 'the test event' });

    expect(tested.path).toBe('/paused');
    expect(JSON.parse(tested.body.toString())).toMatchObject({ type: 'webhook.test' });
    expect(verifies(secret, tested)).toBe(true);
    expect(await rowById(held.id)).toMatchObject({
      state: 'pending',
      attempts: 0,
      locked_until: null,
    });

    await endpoints.update(scope, paused.id, { enabled: true });
    const sent = await waitFor(() => hooks.hits[2], { what: 'the held event' });
    expect(sent.path).toBe('/paused');
    expect(sent.body.equals(Buffer.from(held.payload))).toBe(true);
    await waitFor(async () => (await rowById(held.id)).state === 'delivered', {
      what: 'the held event to be delivered',
    });
    expect(hooks.hits).toHaveLength(3);
  });

  it('sends nothing to another workspace’s or environment’s endpoint, or one not subscribed', async () => {
    const hooks = await receiver();
    const scope = await production();
    const { endpoint: target } = await endpoint(scope, hooks.url('/target'));
    await endpoint({ ...scope, environment: 'development' }, hooks.url('/development'));
    await endpoint(await production(), hooks.url('/other-workspace'));
    await endpoint(scope, hooks.url('/unsubscribed'), ['agent_session.started']);
    expect(await emit(scope)).toBe(1);
    dispatcher();
    const row = await settled(target.id, 'delivered');

    expect(hooks.hits.map((hit) => [hit.path, hit.headers['webhook-id']])).toEqual([
      ['/target', row.event_id],
    ]);
    expect(
      await handle.db.selectFrom('webhook_deliveries').select('endpoint_id').execute(),
    ).toEqual([{ endpoint_id: target.id }]);
  });

  it('delivers each event once when two dispatchers poll the same database', async () => {
    const hooks = await receiver();
    const second = await openTestDatabase(database);
    cleanup.push(() => second.close());
    const scope = await production();
    await endpoint(scope, hooks.url());
    const events = 40;
    for (let i = 0; i < events; i++) await emit(scope, { n: i });
    dispatcher({ pollIntervalMs: 5 });
    dispatcher({
      pollIntervalMs: 5,
      db: second.db,
      endpoints: new WebhookEndpoints(second.db, box),
    });
    const rows = await waitFor(
      async () => {
        const all = await handle.db.selectFrom('webhook_deliveries').selectAll().execute();
        return all.every((row) => row.state === 'delivered') && all;
      },
      { what: `${events} deliveries` },
    );

    expect(rows.map((row) => row.attempts)).toEqual(new Array(events).fill(1));
    expect(hooks.hits).toHaveLength(events);
    expect(new Set(hooks.hits.map((hit) => hit.headers['webhook-id']))).toEqual(
      new Set(rows.map((row) => row.event_id)),
    );
  });

  it('leaves a delivery claimed by another process until its claim expires', async () => {
    const hooks = await receiver();
    const scope = await production();
    const { endpoint: created } = await endpoint(scope, hooks.url());
    await emit(scope);
    const expiresMs = Date.now() + 500;
    await handle.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: new Date(expiresMs).toISOString() })
      .where('endpoint_id', '=', created.id)
      .execute();
    dispatcher();
    const row = await settled(created.id, 'delivered');

    expect(hooks.hits).toHaveLength(1);
    expect(hooks.hits[0]?.receivedAtMs).toBeGreaterThanOrEqual(expiresMs);
    expect(row).toMatchObject({ attempts: 1, locked_until: null });
  });

  it('without private networks, refuses loopback addresses by IP or by name before connecting', async () => {
    const hooks = await receiver();
    const scope = await production();
    const urls = {
      ip: `http://127.0.0.1:${hooks.port}/`,
      name: `http://localhost:${hooks.port}/`,
      ipv6: `http://[::1]:${hooks.port}/`,
      mapped: `http://[::ffff:127.0.0.1]:${hooks.port}/`,
    };
    const ids: Record<string, string> = {};
    for (const [key, url] of Object.entries(urls))
      ids[key] = (await endpoint(scope, url)).endpoint.id;
    await emit(scope);
    dispatcher({ allowPrivateNetworks: false, retryDelaysMs: [50] });
    const errors: Record<string, unknown> = {};
    for (const [key, id] of Object.entries(ids)) {
      const row = await settled(id, 'failed');
      expect(row).toMatchObject({ attempts: 2, last_status: null });
      errors[key] = row.last_error;
    }

    expect(errors).toEqual({
      ip: 'address 127.0.0.1 is not allowed (loopback)',
      name: expect.stringMatching(/^address (127\.0\.0\.1|::1) is not allowed \(loopback\)$/),
      ipv6: 'address ::1 is not allowed (loopback)',
      mapped: 'address ::ffff:7f00:1 is not allowed (loopback)',
    });
    expect(hooks.hits).toHaveLength(0);
    expect(hooks.connections).toBe(0);
  });

  it('close() waits for the attempt in flight and records it', async () => {
    const hooks = await receiver();
    const pending: ServerResponse[] = [];
    hooks.answer = (_hit, res) => {
      pending.push(res);
    };
    const scope = await production();
    const { endpoint: created } = await endpoint(scope, hooks.url());
    await emit(scope);
    const running = dispatcher();
    const res = await waitFor(() => pending[0], { what: 'the request to arrive' });
    const closing = running.close().then(() => 'closed');

    expect(await within(closing, 300, 'still waiting')).toBe('still waiting');
    res.end('ok');
    expect(await closing).toBe('closed');
    expect(await rowOf(created.id)).toMatchObject({
      state: 'delivered',
      attempts: 1,
      last_status: 200,
    });
  });
});
