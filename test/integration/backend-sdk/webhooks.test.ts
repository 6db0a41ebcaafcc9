// The server SDK's webhooks: its resource methods against the real api, and verifyWebhook
// on requests signed as Standard Webhooks prescribes (HMAC-SHA256 of id.timestamp.body).
import { createHmac, randomBytes } from 'node:crypto';
import {
  AwpClient,
  type AwpError,
  InvalidRequestError,
  NotFoundError,
  verifyWebhook,
  type WebhookDelivery,
  type WebhookEvent,
  WebhookVerificationError,
} from '../../../backend-sdk/src/index.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describe, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The three Standard Webhooks headers of `body`, signed with `secret` at `sentAt`. */
function signed(body: string, secret: string, sentAt = new Date(), id = 'evt_test') {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}

/** The error `run` throws, failing the test when it returns. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const refusal = (run: () => unknown) => {
  const error = thrown(run);
  return error instanceof WebhookVerificationError ? error.reason : error;
};

async function rejection(promise: Promise<unknown>): Promise<AwpError> {
  try {
    await promise;
  } catch (error) {
    return error as AwpError;
  }
  throw new Error('expected the call to fail');
}

describe('verifyWebhook', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const event = {
    id: 'evt_test',
    type: 'webhook.test',
    timestamp: '2026-11-26T22:00:00.000Z',
    data: { webhook_id: 'wh_test', environment: 'production' },
  } satisfies WebhookEvent;
  const body = JSON.stringify(event);

  it('returns the event of a correctly signed body, string or Buffer', () => {
    const headers = signed(body, secret);
    expect(verifyWebhook(body, headers, secret)).toEqual(event);
    expect(verifyWebhook(Buffer.from(body), headers, secret)).toEqual(event);
  });

  it('reads fetch Headers and node:http header objects', () => {
    const headers = signed(body, secret);
    expect(verifyWebhook(body, new Headers(headers), secret)).toEqual(event);
    const wrong = signed(body, `whsec_${randomBytes(32).toString('base64')}`);
    const node = {
      host: 'backend.example.com',
      'content-type': 'application/json',
      'webhook-id': [headers['webhook-id']],
      'webhook-timestamp': headers['webhook-timestamp'],
      // Sent twice: one of the signatures matching is enough.
      'webhook-signature': [wrong['webhook-signature'], headers['webhook-signature']],
      'x-absent': undefined,
    };
    expect(verifyWebhook(body, node, secret)).toEqual(event);
    const capitalized = {
      'Webhook-Id': headers['webhook-id'],
      'Webhook-Timestamp': headers['webhook-timestamp'],
      'Webhook-Signature': `${wrong['webhook-signature']} ${headers['webhook-signature']}`,
    };
    expect(verifyWebhook(body, capitalized, secret)).toEqual(event);
  });

  it('refuses a changed body, another secret and a forged id', () => {
    const headers = signed(body, secret);
    expect(refusal(() => verifyWebhook(body.replace('wh_test', 'wh_evil'), headers, secret))).toBe(
      'invalid_signature',
    );
    expect(refusal(() => verifyWebhook(`${body} `, headers, secret))).toBe('invalid_signature');
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(refusal(() => verifyWebhook(body, headers, other))).toBe('invalid_signature');
    expect(refusal(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt_2' }, secret))).toBe(
      'invalid_signature',
    );
    expect(
      refusal(() => verifyWebhook(body, { ...headers, 'webhook-signature': 'v2,abc' }, secret)),
    ).toBe('invalid_signature');
  });

  it('refuses timestamps outside the tolerance, 5 minutes unless told', () => {
    const tenMinutesAgo = signed(body, secret, new Date(Date.now() - 10 * 60_000));
    expect(refusal(() => verifyWebhook(body, tenMinutesAgo, secret))).toBe(
      'timestamp_out_of_tolerance',
    );
    const tenMinutesAhead = signed(body, secret, new Date(Date.now() + 10 * 60_000));
    expect(refusal(() => verifyWebhook(body, tenMinutesAhead, secret))).toBe(
      'timestamp_out_of_tolerance',
    );
    expect(verifyWebhook(body, tenMinutesAgo, secret, { toleranceSeconds: 900 })).toEqual(event);
    const aMinuteAgo = signed(body, secret, new Date(Date.now() - 60_000));
    expect(verifyWebhook(body, aMinuteAgo, secret)).toEqual(event);
    expect(refusal(() => verifyWebhook(body, aMinuteAgo, secret, { toleranceSeconds: 30 }))).toBe(
      'timestamp_out_of_tolerance',
    );
    const headers = signed(body, secret);
    expect(
      refusal(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': 'soon' }, secret)),
    ).toBe('invalid_timestamp');
  });

  it('refuses a request without one of the three headers', () => {
    const headers = signed(body, secret);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _dropped, ...rest } = headers;
      expect(refusal(() => verifyWebhook(body, rest, secret))).toBe('missing_headers');
      expect(refusal(() => verifyWebhook(body, new Headers(rest), secret))).toBe('missing_headers');
    }
    expect(refusal(() => verifyWebhook(body, {}, secret))).toBe('missing_headers');
  });

  it('refuses a signed body that is not an event, and a malformed secret', () => {
    expect(refusal(() => verifyWebhook('not json', signed('not json', secret), secret))).toBe(
      'invalid_payload',
    );
    expect(refusal(() => verifyWebhook('[1]', signed('[1]', secret), secret))).toBe(
      'invalid_payload',
    );
    const error = thrown(() => verifyWebhook(body, signed(body, secret), 'whsec_'));
    expect(error).toBeInstanceOf(TypeError);
  });
});

describeEachDialect('server SDK webhooks on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let client: AwpClient;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      // No dispatcher in the api: deliveries stay as the calls leave them.
      server = await apis.start(database, { env: { RUN_JOBS_IN_PROCESS: 'false' } });
      client = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url, maxAttempts: 1 });
    },
    budget({ servers: 1 }),
  );

  it('creates, lists, reads, edits, rotates and deletes endpoints', async () => {
    const created = await client.webhooks.create({
      url: 'https://backend.example.com/awp',
      events: ['agent_session.ended'],
      description: 'Backend',
    });
    const { secret, ...endpoint } = created;
    expect(created).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: 'https://backend.example.com/awp',
      description: 'Backend',
      events: ['agent_session.ended'],
      enabled: true,
      created_at: expect.stringMatching(ISO),
      updated_at: created.created_at,
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(await client.webhooks.list()).toEqual({ webhooks: [endpoint] });
    expect(await client.webhooks.get(endpoint.id)).toEqual(endpoint);

    const updated = await client.webhooks.update(endpoint.id, {
      enabled: false,
      events: ['agent_session.started', 'agent_session.ended'],
    });
    expect(updated).toEqual({
      ...endpoint,
      enabled: false,
      events: ['agent_session.started', 'agent_session.ended'],
      updated_at: expect.stringMatching(ISO),
    });
    expect(await client.webhooks.get(endpoint.id)).toEqual(updated);

    const rotated = await client.webhooks.rotateSecret(endpoint.id);
    expect(rotated).toEqual({ secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.secret).not.toBe(secret);

    await client.webhooks.delete(endpoint.id);
    expect(await client.webhooks.list()).toEqual({ webhooks: [] });
    const gone = await rejection(client.webhooks.get(endpoint.id));
    expect({ type: gone.constructor, code: gone.code, status: gone.status }).toEqual({
      type: NotFoundError,
      code: 'not_found',
      status: 404,
    });
    const refused = await rejection(
      client.webhooks.create({
        url: 'ftp://backend.example.com/',
        events: ['agent_session.ended'],
      }),
    );
    expect({ type: refused.constructor, code: refused.code, status: refused.status }).toEqual({
      type: InvalidRequestError,
      code: 'invalid_request',
      status: 400,
    });
  });

  it('sends test events, pages deliveries and retries one', async () => {
    const { id, secret } = await client.webhooks.create({
      url: 'https://backend.example.com/awp',
      events: ['agent_session.ended'],
    });
    const sent: WebhookDelivery[] = [];
    for (let i = 0; i < 3; i++) {
      sent.unshift(await client.webhooks.test(id));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const first = sent[0];
    if (!first) throw new Error('no delivery');
    expect(first).toEqual({
      id: expect.stringMatching(/^whd_/),
      webhook_id: id,
      event_id: expect.stringMatching(/^evt_/),
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
        id: first.event_id,
        type: 'webhook.test',
        timestamp: expect.stringMatching(ISO),
        data: { webhook_id: id, environment: 'production' },
      },
    });

    const page = await client.webhooks.deliveries(id, { limit: 2 });
    expect(page).toEqual({
      deliveries: sent.slice(0, 2),
      next_cursor: `${sent[1]?.created_at}~${sent[1]?.id}`,
    });
    const next = await client.webhooks.deliveries(id, { limit: 2, cursor: page.next_cursor ?? '' });
    expect(next).toEqual({ deliveries: sent.slice(2), next_cursor: null });
    expect(await client.webhooks.deliveries(id, { state: 'failed' })).toEqual({
      deliveries: [],
      next_cursor: null,
    });
    expect(await client.webhooks.delivery(id, first.id)).toEqual(first);

    await handle.db
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', attempts: 8, next_attempt_at: null, last_status: 503 })
      .where('id', '=', first.id)
      .execute();
    const retried = await client.webhooks.retryDelivery(id, first.id);
    expect(retried).toEqual({
      ...first,
      state: 'pending',
      attempts: 0,
      last_status: 503,
      next_attempt_at: expect.stringMatching(ISO),
    });

    // What a receiver gets for this delivery verifies with the secret shown at creation.
    const body = JSON.stringify(first.payload);
    const headers = signed(body, secret, new Date(), first.event_id);
    expect(verifyWebhook(body, headers, secret)).toEqual(first.payload);
  });
});
