// The /v1/webhooks routes over real HTTP: endpoints per workspace and environment, secrets
// shown once and stored sealed, test events, delivery history pages and manual retries.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { SecretBox } from '../../../src/secrets/secret-box.ts';
import { WebhookEndpoints } from '../../../src/webhooks/endpoints.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../src/webhooks/event-types.ts';
import { emitTestEvent } from '../../../src/webhooks/outbox.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, type ApiReply, apiClient } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ENDPOINT_ID = /^wh_[0-9A-Za-z]{20}$/;
const DELIVERY_ID = /^whd_[0-9A-Za-z]{20}$/;
const EVENT_ID = /^evt_[0-9A-Za-z]{24}$/;
const UNKNOWN_DELIVERY = 'whd_00000000000000000000';
const ENDED = 'agent_session.ended';

/** Every route of one endpoint (and one of its deliveries), with a body where one is sent. */
const endpointRoutes = (id: string, deliveryId: string) =>
  [
    ['GET', `/v1/webhooks/${id}`],
    ['PATCH', `/v1/webhooks/${id}`, { enabled: false }],
    ['DELETE', `/v1/webhooks/${id}`],
    ['POST', `/v1/webhooks/${id}/rotate-secret`],
    ['POST', `/v1/webhooks/${id}/test`],
    ['GET', `/v1/webhooks/${id}/deliveries`],
    ['GET', `/v1/webhooks/${id}/deliveries/${deliveryId}`],
    ['POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/retry`],
  ] as const;

const withoutSecret = ({ secret: _secret, ...endpoint }: Record<string, unknown>) => endpoint;

/** The spec's flat error object, with the request id of the `X-Request-Id` header. */
function expectError(reply: ApiReply, status: number, code: string) {
  const request_id = reply.headers.get('x-request-id');
  const body = { event: 'error', request_id, code, retryable: false, detail: expect.any(String) };
  expect({ status: reply.status, body: reply.body }).toEqual({ status, body });
}

describeEachDialect('webhook routes on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let devApi: ApiClient;

  const create = async (fields: Record<string, unknown> = {}, client = api) => {
    const body = { url: 'https://example.com/hooks', events: [ENDED], ...fields };
    const reply = await client('POST', '/v1/webhooks', body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as Record<string, unknown> & { id: string; secret: string };
  };
  const seedDeliveries = async (endpointId: string, count: number) => {
    const scope = { workspaceId: ws.workspaceId, environment: 'production' as const };
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(await emitTestEvent(handle.db, scope, endpointId, new Date()));
      // Distinct creation times, so "newest first" is the reverse of this order.
      await sleep(3);
    }
    return ids.reverse();
  };
  const endpointRow = (id: string) =>
    handle.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  /** The secret deliveries of the endpoint are signed with. */
  const signingSecret = async (id: string) => {
    const box = SecretBox.fromConfig({ dataDir: database.dataDir });
    return (await new WebhookEndpoints(handle.db, box).target(id))?.secrets[0];
  };

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      // No dispatcher in the api: deliveries stay as the routes leave them.
      server = await apis.start(database, { env: { RUN_JOBS_IN_PROCESS: 'false' } });
      api = apiClient(server.url, ws.productionKey);
      devApi = apiClient(server.devUrl, ws.developmentKey);
    },
    budget({ servers: 1 }),
  );

  it('creates an endpoint and shows its secret once, sealed in the database', async () => {
    const reply = await api('POST', '/v1/webhooks', {
      url: 'https://Example.com/hooks?source=awp',
      events: [ENDED, ENDED],
      description: '  Billing backend ',
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const { secret } = reply.body;
    expect(reply.body).toEqual({
      id: expect.stringMatching(ENDPOINT_ID),
      url: 'https://example.com/hooks?source=awp',
      description: 'Billing backend',
      events: [ENDED],
      enabled: true,
      created_at: expect.stringMatching(ISO),
      updated_at: reply.body.created_at,
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').byteLength).toBe(32);

    const endpoint = withoutSecret(reply.body);
    const got = await api('GET', `/v1/webhooks/${reply.body.id}`);
    expect({ status: got.status, body: got.body }).toEqual({ status: 200, body: endpoint });
    const row = await endpointRow(reply.body.id);
    expect(JSON.stringify(row)).not.toContain(secret.slice('whsec_'.length));
    expect(row.secret_ciphertext).not.toContain(secret);
    expect(await signingSecret(reply.body.id)).toBe(secret);

    const disabled = await create({ enabled: false, events: [ENDED] });
    expect(disabled.enabled).toBe(false);
    const list = await api('GET', '/v1/webhooks');
    expect({ status: list.status, body: list.body }).toEqual({
      status: 200,
      body: { webhooks: [endpoint, withoutSecret(disabled)] },
    });
  });

  it('edits the fields given and keeps the rest; {} changes nothing', async () => {
    const made = await create({ description: 'first' });
    const { secret, ...before } = made;
    await sleep(5);
    const same = await api('PATCH', `/v1/webhooks/${made.id}`, {});
    expect({ status: same.status, body: same.body }).toEqual({ status: 200, body: before });

    await sleep(5);
    const edited = await api('PATCH', `/v1/webhooks/${made.id}`, {
      url: 'http://hooks.example.org:8080/in',
      description: '',
      enabled: false,
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({
      ...before,
      url: 'http://hooks.example.org:8080/in',
      description: '',
      enabled: false,
      updated_at: expect.stringMatching(ISO),
    });
    expect(edited.body.updated_at > String(before.updated_at)).toBe(true);
    const events = await api('PATCH', `/v1/webhooks/${made.id}`, { events: [ENDED] });
    expect(events.body).toEqual({ ...edited.body, updated_at: expect.stringMatching(ISO) });
    expect((await api('GET', `/v1/webhooks/${made.id}`)).body).toEqual(events.body);
    expect((await endpointRow(made.id)).secret_ciphertext).not.toContain(secret);

    for (const body of [{ events: [] }, { url: 'ftp://example.com/' }, { secret: 'x' }]) {
      expectError(await api('PATCH', `/v1/webhooks/${made.id}`, body), 400, 'invalid_request');
    }
  });

  it('rotates the secret: a new one, shown once, which deliveries are signed with', async () => {
    const made = await create();
    const rotated = await api('POST', `/v1/webhooks/${made.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.secret).not.toBe(made.secret);
    expect(await signingSecret(made.id)).toBe(rotated.body.secret);
    const row = await endpointRow(made.id);
    expect(row.secret_ciphertext).not.toContain(rotated.body.secret.slice('whsec_'.length));
    expect((await api('GET', `/v1/webhooks/${made.id}`)).body).not.toHaveProperty('secret');

    expect((await api('POST', `/v1/webhooks/${made.id}/rotate-secret`, {})).status).toBe(200);
    const withBody = await api('POST', `/v1/webhooks/${made.id}/rotate-secret`, { force: 1 });
    expectError(withBody, 400, 'invalid_request');
  });

  it('deletes an endpoint with its deliveries', async () => {
    const made = await create();
    await seedDeliveries(made.id, 1);
    const deleted = await api('DELETE', `/v1/webhooks/${made.id}`);
    expect([deleted.status, deleted.bytes.byteLength]).toEqual([204, 0]);
    expectError(await api('GET', `/v1/webhooks/${made.id}`), 404, 'not_found');
    expectError(await api('DELETE', `/v1/webhooks/${made.id}`), 404, 'not_found');
    const left = await handle.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', made.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('queues a test event and serves it as a delivery', async () => {
    const made = await create({ enabled: false });
    const reply = await api('POST', `/v1/webhooks/${made.id}/test`);
    expect(reply.status).toBe(202);
    const delivery = reply.body;
    expect(delivery).toEqual({
      id: expect.stringMatching(DELIVERY_ID),
      webhook_id: made.id,
      event_id: expect.stringMatching(EVENT_ID),
      event_type: 'webhook.test',
      state: 'pending',
      attempts: 0,
      next_attempt_at: expect.stringMatching(ISO),
      last_attempt_at: null,
      last_status: null,
      last_error: null,
      last_duration_ms: null,
      delivered_at: null,
      created_at: expect.stringMatching(ISO),
      payload: {
        id: delivery.event_id,
        type: 'webhook.test',
        timestamp: expect.stringMatching(ISO),
        data: { webhook_id: made.id, environment: 'production' },
      },
    });
    const got = await api('GET', `/v1/webhooks/${made.id}/deliveries/${delivery.id}`);
    expect({ status: got.status, body: got.body }).toEqual({ status: 200, body: delivery });
    const list = await api('GET', `/v1/webhooks/${made.id}/deliveries`);
    expect(list.body).toEqual({ deliveries: [delivery], next_cursor: null });
    expect((await api('POST', `/v1/webhooks/${made.id}/test`, {})).status).toBe(202);
    const unknown = await api('GET', `/v1/webhooks/${made.id}/deliveries/${UNKNOWN_DELIVERY}`);
    expectError(unknown, 404, 'not_found');
  });

  it('pages deliveries newest first with a cursor, and filters by state', async () => {
    const made = await create();
    const newestFirst = await seedDeliveries(made.id, 22);
    /** One page as ids: what a caller pages through. */
    const page = async (query: string) => {
      const reply = await api('GET', `/v1/webhooks/${made.id}/deliveries?${query}`);
      const ids = reply.body.deliveries.map((d: { id: string }) => d.id);
      return { status: reply.status, ids, next: reply.body.next_cursor };
    };
    expect(await page('')).toEqual({
      status: 200,
      ids: newestFirst.slice(0, 20),
      next: expect.stringMatching(new RegExp(`^\\d{4}-.+Z~${newestFirst[19]}$`)),
    });
    const rest = { status: 200, ids: newestFirst.slice(20), next: null };
    expect(await page(`cursor=${(await page('')).next}`)).toEqual(rest);
    // A cursor is a position: one past every delivery pages them all, one before none.
    expect((await page(`cursor=2999-01-01T00:00:00.000Z~whd_${'z'.repeat(20)}`)).ids).toEqual(
      newestFirst.slice(0, 20),
    );
    expect(await page(`cursor=2000-01-01T00:00:00.000Z~whd_${'0'.repeat(20)}`)).toEqual({
      status: 200,
      ids: [],
      next: null,
    });

    const pages: string[][] = [];
    for (let cursor = ''; pages.length === 0 || cursor; ) {
      const next = await page(`limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(next.ids);
      cursor = next.next ?? '';
    }
    expect(pages.map((ids) => ids.length)).toEqual([5, 5, 5, 5, 2]);
    expect(pages.flat()).toEqual(newestFirst);

    const failedId = newestFirst[7] as string;
    await handle.db
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', next_attempt_at: null })
      .where('id', '=', failedId)
      .execute();
    expect(await page('state=failed')).toEqual({ status: 200, ids: [failedId], next: null });
    expect(await page('state=delivered')).toEqual({ status: 200, ids: [], next: null });

    const other = await create();
    const [foreign] = await seedDeliveries(other.id, 1);
    // A delivery id alone is not a cursor (its format is `{time}~{id}`).
    const refused = [`cursor=${foreign}`, `cursor=${UNKNOWN_DELIVERY}`, 'cursor=0', 'limit=0'];
    for (const query of [...refused, 'limit=two', 'state=sent', 'page=2']) {
      const reply = await api('GET', `/v1/webhooks/${made.id}/deliveries?${query}`);
      expectError(reply, 400, 'invalid_request');
    }
  });

  it('retries a failed delivery: pending again, due now, with 0 attempts', async () => {
    const made = await create();
    const [id] = await seedDeliveries(made.id, 1);
    await handle.db
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', attempts: 8, next_attempt_at: null, last_status: 500 })
      .set({ last_attempt_at: '2026-01-01T00:00:00.000Z', last_error: 'HTTP 500' })
      .where('id', '=', id as string)
      .execute();
    const before = (await api('GET', `/v1/webhooks/${made.id}/deliveries/${id}`)).body;
    expect(before).toMatchObject({ state: 'failed', attempts: 8, next_attempt_at: null });

    const started = Date.now();
    const retried = await api('POST', `/v1/webhooks/${made.id}/deliveries/${id}/retry`);
    expect({ status: retried.status, body: retried.body }).toEqual({
      status: 202,
      body: { ...before, state: 'pending', attempts: 0, next_attempt_at: expect.any(String) },
    });
    // Due now: within the second around the call.
    const dueMs = Date.parse(retried.body.next_attempt_at);
    expect(dueMs >= started - 1000 && dueMs <= Date.now() + 1000).toBe(true);
    const got = await api('GET', `/v1/webhooks/${made.id}/deliveries/${id}`);
    expect(got.body).toEqual(retried.body);
    const path = `/v1/webhooks/${made.id}/deliveries/${UNKNOWN_DELIVERY}/retry`;
    expectError(await api('POST', path), 404, 'not_found');
  });

  it('refuses invalid endpoints with invalid_request', async () => {
    const valid = { url: 'https://example.com/hooks', events: [ENDED] };
    for (const body of [
      { ...valid, url: 'not a url' },
      { ...valid, url: 'ftp://example.com/hooks' },
      { ...valid, url: 'https://user:pass@example.com/hooks' },
      { ...valid, url: `https://example.com/${'a'.repeat(2048)}` },
      { ...valid, events: ['agent_session.exploded'] },
      { ...valid, events: [] },
      { ...valid, description: 'd'.repeat(201) },
      { ...valid, secret: 'whsec_mine' },
      { events: [ENDED] },
      { url: valid.url },
    ]) {
      expectError(await api('POST', '/v1/webhooks', body), 400, 'invalid_request');
    }
    const json = { 'content-type': 'application/json' };
    expectError(
      await api('POST', '/v1/webhooks', Buffer.from('{"url":'), json),
      400,
      'invalid_request',
    );
  });

  it('allows 20 endpoints per workspace and environment', async () => {
    const crowded = await seedWorkspace(handle);
    const crowdedApi = apiClient(server.url, crowded.productionKey);
    for (let i = 0; i < 20; i++) await create({ url: `https://example.com/${i}` }, crowdedApi);
    expectError(
      await crowdedApi('POST', '/v1/webhooks', { url: 'https://example.com/x', events: [ENDED] }),
      409,
      'conflict',
    );
    expect((await crowdedApi('GET', '/v1/webhooks')).body.webhooks).toHaveLength(20);
    const dev = apiClient(server.devUrl, crowded.developmentKey);
    await create({}, dev);
  });

  it("hides other workspaces' and the other environment's endpoints", async () => {
    const made = await create();
    const [deliveryId] = await seedDeliveries(made.id, 1);
    const other = await seedWorkspace(handle);
    for (const client of [apiClient(server.url, other.productionKey), devApi]) {
      for (const [method, path, body] of endpointRoutes(made.id, deliveryId as string)) {
        expectError(await client(method, path, body), 404, 'not_found');
      }
      expect((await client('GET', '/v1/webhooks')).body).toEqual({ webhooks: [] });
    }
    const devEndpoint = await create({}, devApi);
    const devList = await devApi('GET', '/v1/webhooks');
    expect(devList.body).toEqual({ webhooks: [withoutSecret(devEndpoint)] });
    expectError(await api('GET', `/v1/webhooks/${devEndpoint.id}`), 404, 'not_found');
    // Untouched by the refused calls.
    expect((await api('GET', `/v1/webhooks/${made.id}`)).body.enabled).toBe(true);
  });

  it('is documented: each route with its success status and strict bodies', async () => {
    const doc = await (await fetch(`${server.url}/v1/openapi.json`)).json();
    const documented = Object.entries<Record<string, { responses: object }>>(doc.paths)
      .filter(([path]) => path.startsWith('/v1/webhooks'))
      .flatMap(([path, ops]) =>
        Object.entries(ops).map(([m, op]) => {
          const success = Object.keys(op.responses).filter((status) => status.startsWith('2'));
          return `${m.toUpperCase()} ${path} ${success}`;
        }),
      );
    const one = '/v1/webhooks/{webhookId}';
    const delivery = `${one}/deliveries/{deliveryId}`;
    expect(documented.sort()).toEqual(
      [
        ...['POST /v1/webhooks 201', 'GET /v1/webhooks 200', `GET ${one} 200`, `PATCH ${one} 200`],
        ...[`DELETE ${one} 204`, `POST ${one}/rotate-secret 200`, `POST ${one}/test 202`],
        ...[`GET ${one}/deliveries 200`, `GET ${delivery} 200`, `POST ${delivery}/retry 202`],
      ].sort(),
    );
    const create = doc.paths['/v1/webhooks'].post.requestBody.content['application/json'].schema;
    expect(create).toMatchObject({ required: ['url', 'events'], additionalProperties: false });
    expect(create.properties.events.items.enum).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('needs a workspace key, and no product capability', async () => {
    const anonymous = apiClient(server.url, undefined);
    const made = await create();
    for (const [method, path, body] of [
      ['POST', '/v1/webhooks', { url: 'https://example.com/', events: [ENDED] }],
      ['GET', '/v1/webhooks'],
      ...endpointRoutes(made.id, UNKNOWN_DELIVERY),
    ] as const) {
      expectError(await anonymous(method, path, body), 401, 'unauthorized');
    }
    const ttsOnly = await seedWorkspace(handle, { capabilities: ['tts'] });
    const reply = await apiClient(server.url, ttsOnly.productionKey)('GET', '/v1/webhooks');
    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 200,
      body: { webhooks: [] },
    });
  });
});
