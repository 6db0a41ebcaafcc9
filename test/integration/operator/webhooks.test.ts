// The operator API's webhook routes (the dashboard's Config › Webhooks page) against a real
// api on both databases: each route's body, the signing secret in the answers of create and
// rotate only (and the one the service keeps to sign), test events, an endpoint's deliveries
// paged newest first with `next_cursor`, retry, delete, the roles, and endpoints of another
// workspace or environment answering 404.

import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { WebhookDeliveryState } from '../../../src/db/schema.ts';
import { SecretBox } from '../../../src/secrets/secret-box.ts';
import { WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../src/webhooks/event-types.ts';
import { newDeliveryId, newEventId } from '../../../src/webhooks/outbox.ts';
import {
  addOperator,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({}) });

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** Deliveries of the paged endpoint: more than two pages of 20. */
const DELIVERIES = 45;
const T0 = Date.parse('2025-03-01T09:00:00.000Z');

/** An endpoint as the routes answer it; `secret` only from create and rotate. */
type EndpointBody = Record<string, unknown> & { id: string; updated_at: string; secret?: string };
type DeliveryBody = Record<string, unknown> & { id: string; next_attempt_at: string | null };

/** Every route of one endpoint, with the body of those that take one. */
const endpointRoutes = (id: string, deliveryId: string) =>
  [
    ['PATCH', `/webhooks/${id}`, { enabled: false }],
    ['DELETE', `/webhooks/${id}`, undefined],
    ['POST', `/webhooks/${id}/rotate-secret`, undefined],
    ['POST', `/webhooks/${id}/test`, undefined],
    ['GET', `/webhooks/${id}/deliveries`, undefined],
    ['POST', `/webhooks/${id}/deliveries/${deliveryId}/retry`, undefined],
  ] as const;

describeEachDialect('operator API webhooks on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let owner: OperatorClient;
  let admin: OperatorClient;
  /** What the service signs deliveries with: the secret it keeps for an endpoint. */
  let signingSecret: (endpointId: string) => Promise<string | undefined>;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      other = await seedWorkspace(handle);
      for (const role of ['owner', 'admin', 'builder', 'member'] as const) {
        await addOperator(handle.db, ws, { role });
      }
      await addOperator(handle.db, other, { email: 'elsewhere@example.com' });
      // No job workers: deliveries stay as the routes and the test leave them.
      server = await apis.start(database, { env: { RUN_JOBS_IN_PROCESS: 'false' } });
      owner = await signInAs(server.url, 'owner@example.com');
      admin = await signInAs(server.url, 'admin@example.com');
      // The api made the deployment's secrets key in its data directory at start.
      const kept = new WebhookEndpoints(
        handle.db,
        SecretBox.fromConfig({ dataDir: database.dataDir }),
      );
      signingSecret = async (id) => (await kept.target(id))?.secrets[0];
    },
    budget({ servers: 1 }),
  );

  const create = async (client: OperatorClient, url: string, events = [...WEBHOOK_EVENT_TYPES]) => {
    const response = await client.request('POST', '/webhooks', { url, events });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return (response.body as { webhook: EndpointBody }).webhook;
  };

  /** A delivery written as the outbox and the dispatcher leave it. */
  const insertDelivery = async (
    endpointId: string,
    createdAt: string,
    state: WebhookDeliveryState,
    attempts = 1,
  ) => {
    const id = newDeliveryId();
    const eventId = newEventId();
    await handle.db
      .insertInto('webhook_deliveries')
      .values({
        id,
        endpoint_id: endpointId,
        workspace_id: ws.workspaceId,
        event_id: eventId,
        event_type: 'agent_session.ended',
        payload: JSON.stringify({ id: eventId, type: 'agent_session.ended', data: {} }),
        state,
        attempts,
        last_attempt_at: createdAt,
        last_status: state === 'delivered' ? 200 : 500,
        delivered_at: state === 'delivered' ? createdAt : null,
        created_at: createdAt,
      })
      .execute();
    return { id, createdAt };
  };

  it('creates an endpoint whose signing secret is in that answer only', async () => {
    const response = await owner.request('POST', '/webhooks', {
      url: 'https://hooks.example.com/awp/created',
      events: [...WEBHOOK_EVENT_TYPES],
      description: 'Order desk',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const created = (response.body as { webhook: EndpointBody }).webhook;
    expect(created).toEqual({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{20}$/),
      url: 'https://hooks.example.com/awp/created',
      description: 'Order desk',
      events: [...WEBHOOK_EVENT_TYPES],
      enabled: true,
      created_at: expect.any(String),
      updated_at: created.created_at,
      secret: expect.stringMatching(SECRET),
    });
    expect(await signingSecret(created.id)).toBe(created.secret);

    const listed = await admin.request('GET', '/webhooks');
    expect(listed.status).toBe(200);
    const { secret, ...withoutSecret } = created;
    expect(listed.body).toEqual({
      webhooks: [withoutSecret],
      event_types: [...WEBHOOK_EVENT_TYPES],
    });
    expect(JSON.stringify(listed.body)).not.toContain(secret as string);
  });

  it('refuses an endpoint without a usable URL or events, and unknown fields', async () => {
    const url = 'https://hooks.example.com/awp';
    const events = [...WEBHOOK_EVENT_TYPES];
    const bodies = [
      { url: 'ftp://hooks.example.com/awp', events },
      { url: 'https://user:pass@hooks.example.com/awp', events },
      { url, events: [] },
      { url, events, secret: 'x' },
      { url, events, description: 'd'.repeat(201) },
    ];
    for (const body of bodies) {
      const refused = await owner.request('POST', '/webhooks', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('updates URL, events, description and enabled; the secret stays', async () => {
    const created = await create(owner, 'https://hooks.example.com/awp/update');
    const lastType = WEBHOOK_EVENT_TYPES.at(-1) as string;
    const response = await admin.request('PATCH', `/webhooks/${created.id}`, {
      url: 'https://hooks.example.com/awp/updated',
      events: [lastType],
      description: 'Renamed',
      enabled: false,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const updated = (response.body as { webhook: EndpointBody }).webhook;
    expect(updated).toEqual({
      id: created.id,
      url: 'https://hooks.example.com/awp/updated',
      description: 'Renamed',
      events: [lastType],
      enabled: false,
      created_at: created.created_at,
      updated_at: expect.any(String),
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    expect(await signingSecret(created.id)).toBe(created.secret);

    const enabled = await owner.request('PATCH', `/webhooks/${created.id}`, { enabled: true });
    expect((enabled.body as { webhook: EndpointBody }).webhook).toMatchObject({
      url: 'https://hooks.example.com/awp/updated',
      events: [lastType],
      enabled: true,
    });
  });

  it('rotates the secret: the new one is in that answer only and signs from then on', async () => {
    const created = await create(owner, 'https://hooks.example.com/awp/rotate');
    const response = await admin.request('POST', `/webhooks/${created.id}/rotate-secret`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const rotated = (response.body as { webhook: EndpointBody }).webhook;
    const { secret: oldSecret, updated_at: _, ...unchanged } = created;
    expect(rotated).toMatchObject(unchanged);
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(oldSecret);
    expect(await signingSecret(created.id)).toBe(rotated.secret);
    const listed = await owner.request('GET', '/webhooks');
    expect(JSON.stringify(listed.body)).not.toContain(rotated.secret as string);
  });

  it('queues a test event for an endpoint, enabled or not, listed first among its deliveries', async () => {
    const created = await create(owner, 'https://hooks.example.com/awp/test');
    await owner.request('PATCH', `/webhooks/${created.id}`, { enabled: false });
    const older = await insertDelivery(created.id, '2025-01-01T00:00:00.000Z', 'delivered');
    const response = await owner.request('POST', `/webhooks/${created.id}/test`);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const delivery = (response.body as { delivery: DeliveryBody }).delivery;
    expect(delivery).toEqual({
      id: expect.stringMatching(/^whd_/),
      webhook_id: created.id,
      event_id: expect.stringMatching(/^evt_/),
      event_type: 'webhook.test',
      state: 'pending',
      attempts: 0,
      next_attempt_at: expect.any(String),
      last_attempt_at: null,
      last_status: null,
      last_error: null,
      last_duration_ms: null,
      delivered_at: null,
      created_at: expect.any(String),
      payload: {
        id: delivery.event_id,
        type: 'webhook.test',
        timestamp: expect.any(String),
        data: { webhook_id: created.id, environment: 'production' },
      },
    });
    const listed = await owner.request('GET', `/webhooks/${created.id}/deliveries`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    const body = listed.body as { deliveries: DeliveryBody[]; next_cursor: string | null };
    expect(body.next_cursor).toBeNull();
    expect(body.deliveries.map((row) => row.id)).toEqual([delivery.id, older.id]);
    expect(body.deliveries[0]?.event_type).toBe('webhook.test');
    expect(body.deliveries[1]).toMatchObject({
      event_type: 'agent_session.ended',
      state: 'delivered',
      attempts: 1,
      last_status: 200,
      delivered_at: older.createdAt,
    });
  });

  it('pages an endpoint’s deliveries newest first, 20 at a time, with next_cursor', async () => {
    const created = await create(owner, 'https://hooks.example.com/awp/paged');
    const rows = [];
    for (let i = 0; i < DELIVERIES; i++) {
      // The 20th and 21st newest share a moment: the first page ends between them.
      const at = i === DELIVERIES - 21 ? DELIVERIES - 20 : i;
      rows.push(
        await insertDelivery(created.id, new Date(T0 + at * 1_000).toISOString(), 'delivered'),
      );
    }
    const newest = [...rows]
      .sort((a, b) =>
        a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
      )
      .map((row) => row.id);
    const pages: { ids: string[]; next: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?cursor=${cursor}` : '';
      const response = await owner.request('GET', `/webhooks/${created.id}/deliveries${query}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const body = response.body as { deliveries: DeliveryBody[]; next_cursor: string | null };
      expect(Object.keys(body).sort()).toEqual(['deliveries', 'next_cursor']);
      pages.push({ ids: body.deliveries.map((row) => row.id), next: body.next_cursor });
      cursor = body.next_cursor;
    } while (cursor !== null && pages.length < 5);
    expect(pages).toEqual([
      { ids: newest.slice(0, 20), next: expect.stringMatching(new RegExp(`~${newest[19]}$`)) },
      { ids: newest.slice(20, 40), next: expect.stringMatching(new RegExp(`~${newest[39]}$`)) },
      { ids: newest.slice(40), next: null },
    ]);

    // A delivery id alone is not a cursor (`{time}~{id}` is).
    const elsewhere = await create(owner, 'https://hooks.example.com/awp/elsewhere');
    const foreign = await insertDelivery(elsewhere.id, new Date(T0).toISOString(), 'delivered');
    for (const query of [
      `cursor=${foreign.id}`,
      'cursor=whd_none',
      'limit=0',
      'limit=101',
      'page=2',
    ]) {
      const refused = await owner.request('GET', `/webhooks/${created.id}/deliveries?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('retries a failed delivery: pending again, due now, the same event', async () => {
    const created = await create(owner, 'https://hooks.example.com/awp/retry');
    const failed = await insertDelivery(created.id, new Date(T0).toISOString(), 'failed', 8);
    const before = await owner.request('GET', `/webhooks/${created.id}/deliveries`);
    const [listed] = (before.body as { deliveries: DeliveryBody[] }).deliveries;
    expect(listed).toMatchObject({ id: failed.id, state: 'failed', attempts: 8 });

    const startedAt = Date.now();
    const retry = `/webhooks/${created.id}/deliveries/${failed.id}/retry`;
    const response = await admin.request('POST', retry);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const retried = (response.body as { delivery: DeliveryBody }).delivery;
    expect(retried).toEqual({
      ...listed,
      state: 'pending',
      attempts: 0,
      next_attempt_at: expect.any(String),
    });
    const due = Date.parse(retried.next_attempt_at as string);
    expect(due).toBeGreaterThanOrEqual(startedAt - 1_000);
    expect(due).toBeLessThanOrEqual(Date.now() + 1_000);

    // Through another endpoint of the workspace, the delivery is not found.
    const sibling = await create(owner, 'https://hooks.example.com/awp/sibling');
    const refused = await owner.request('POST', retry.replace(created.id, sibling.id));
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ code: 'not_found' });
  });

  it('deletes an endpoint with its deliveries', async () => {
    const created = await create(owner, 'https://hooks.example.com/awp/delete');
    const delivery = await insertDelivery(created.id, new Date(T0).toISOString(), 'failed');
    const response = await admin.request('DELETE', `/webhooks/${created.id}`);
    expect(response.status).toBe(204);
    const listed = await owner.request('GET', '/webhooks');
    const ids = (listed.body as { webhooks: EndpointBody[] }).webhooks.map((row) => row.id);
    expect(ids).not.toContain(created.id);
    for (const [method, path, body] of endpointRoutes(created.id, delivery.id)) {
      const gone = await owner.request(method, path, body);
      expect(gone.status, `${method} ${path}`).toBe(404);
      expect(gone.body).toMatchObject({ code: 'not_found' });
    }
    const left = await handle.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', created.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('answers 404 for an endpoint of another workspace or environment, and leaves it be', async () => {
    const elsewhere = await signInAs(server.url, 'elsewhere@example.com');
    const theirs = await create(elsewhere, 'https://hooks.example.com/awp/theirs');
    const theirDelivery = await insertDelivery(theirs.id, new Date(T0).toISOString(), 'failed');
    const ours = await create(owner, 'https://hooks.example.com/awp/ours');
    const development = await signInAs(server.devUrl, 'owner@example.com');

    for (const [client, id] of [
      [owner, theirs.id],
      [development, ours.id],
    ] as const) {
      for (const [method, path, body] of endpointRoutes(id, theirDelivery.id)) {
        const refused = await client.request(method, path, body);
        expect(refused.status, `${method} ${path}`).toBe(404);
        expect(refused.body).toMatchObject({ code: 'not_found' });
      }
    }
    const listed = await owner.request('GET', '/webhooks');
    expect(
      (listed.body as { webhooks: EndpointBody[] }).webhooks.map((row) => row.id),
    ).not.toContain(theirs.id);
    const developmentList = await development.request('GET', '/webhooks');
    expect(developmentList.body).toEqual({ webhooks: [], event_types: [...WEBHOOK_EVENT_TYPES] });

    // Theirs is as it was: enabled, its secret and its delivery unchanged.
    const still = await elsewhere.request('GET', '/webhooks');
    const { secret, ...theirsListed } = theirs;
    expect(still.body).toEqual({ webhooks: [theirsListed], event_types: [...WEBHOOK_EVENT_TYPES] });
    expect(await signingSecret(theirs.id)).toBe(secret);
    const deliveries = await elsewhere.request('GET', `/webhooks/${theirs.id}/deliveries`);
    expect((deliveries.body as { deliveries: DeliveryBody[] }).deliveries).toEqual([
      expect.objectContaining({ id: theirDelivery.id, state: 'failed' }),
    ]);
  });

  it('answers Owner and Admin; a Builder or Member gets 403, a visitor 401', async () => {
    const created = await create(owner, 'https://hooks.example.com/awp/roles');
    const delivery = await insertDelivery(created.id, new Date(T0).toISOString(), 'failed');
    const routes = [
      ['GET', '/webhooks', undefined],
      ['POST', '/webhooks', { url: 'https://hooks.example.com/awp/x', events: ['x'] }],
      ...endpointRoutes(created.id, delivery.id),
    ] as const;
    for (const role of ['builder', 'member'] as const) {
      const client = await signInAs(server.url, `${role}@example.com`);
      for (const [method, path, body] of routes) {
        const refused = await client.request(method, path, body);
        expect(refused.status, `${role} ${method} ${path}`).toBe(403);
        expect(refused.body).toMatchObject({
          code: 'forbidden',
          detail: `This requires the role owner, admin in the workspace; you are ${role}.`,
        });
      }
    }
    const visitor = new OperatorClient(server.url);
    for (const [method, path, body] of routes) {
      expect((await visitor.request(method, path, body)).status, `${method} ${path}`).toBe(401);
    }
    // Nothing a refused caller asked for happened.
    expect(await signingSecret(created.id)).toBe(created.secret);
    const deliveries = await admin.request('GET', `/webhooks/${created.id}/deliveries`);
    expect((deliveries.body as { deliveries: DeliveryBody[] }).deliveries).toEqual([
      expect.objectContaining({ id: delivery.id, state: 'failed' }),
    ]);
  });
});
