import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type {
  WebhookDelivery,
  WebhookDeliveryState,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointUpdate,
} from '../types/webhooks.ts';

/** Answer of `GET /v1/webhooks`. */
export interface WebhookEndpointList {
  /** Oldest first. */
  webhooks: WebhookEndpoint[];
}

/** Answer of `POST /v1/webhooks/{id}/rotate-secret`. */
export interface WebhookSecret {
  /** The new signing secret (`whsec_...`), shown only this once. */
  secret: string;
}

/** Query of `GET /v1/webhooks/{id}/deliveries`. */
export interface WebhookDeliveryListQuery {
  /** 1 to 100; default 20. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** Only deliveries in this state. */
  state?: WebhookDeliveryState;
}

/** Answer of `GET /v1/webhooks/{id}/deliveries`. */
export interface WebhookDeliveryList {
  /** Newest first. */
  deliveries: WebhookDelivery[];
  /** Pass as `cursor` for older deliveries; null on the last page. */
  next_cursor: string | null;
}

const path = (webhookId: string, rest = '') =>
  `/v1/webhooks/${encodeURIComponent(webhookId)}${rest}`;
const deliveryPath = (webhookId: string, deliveryId: string, rest = '') =>
  path(webhookId, `/deliveries/${encodeURIComponent(deliveryId)}${rest}`);

/**
 * `/v1/webhooks`: the endpoints the service sends events to, in the key's environment, and
 * their deliveries. Verify what arrives with {@link verifyWebhook}.
 */
export class Webhooks {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * Registers an endpoint. The answer carries its signing secret (`whsec_...`), shown only
   * this once: store it where your receiver reads it. Not retried after a network failure:
   * a retry could register the endpoint twice.
   *
   * @example
   * ```ts
   * const { id, secret } = await client.webhooks.create({
   *   url: 'https://backend.example.com/awp/webhooks',
   *   events: ['agent_session.ended'],
   * });
   * ```
   */
  async create(
    body: WebhookEndpointCreate,
    options?: RequestOptions,
  ): Promise<WebhookEndpointCreated> {
    const call = {
      method: 'POST',
      path: '/v1/webhooks',
      json: body,
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<WebhookEndpointCreated>(this.http, call, options)).body;
  }

  /**
   * Every endpoint of the workspace in the key's environment, oldest first.
   *
   * @example
   * ```ts
   * const { webhooks } = await client.webhooks.list();
   * ```
   */
  async list(options?: RequestOptions): Promise<WebhookEndpointList> {
    const call = { method: 'GET', path: '/v1/webhooks', expect: 'json', idempotent: true } as const;
    return (await send<WebhookEndpointList>(this.http, call, options)).body;
  }

  /**
   * One endpoint (never its secret).
   *
   * @example
   * ```ts
   * const endpoint = await client.webhooks.get(webhookId);
   * ```
   */
  async get(webhookId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    const call = {
      method: 'GET',
      path: path(webhookId),
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<WebhookEndpoint>(this.http, call, options)).body;
  }

  /**
   * Changes the fields given; the secret stays.
   *
   * @example
   * ```ts
   * await client.webhooks.update(webhookId, { enabled: false });
   * ```
   */
  async update(
    webhookId: string,
    body: WebhookEndpointUpdate,
    options?: RequestOptions,
  ): Promise<WebhookEndpoint> {
    const call = {
      method: 'PATCH',
      path: path(webhookId),
      json: body,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<WebhookEndpoint>(this.http, call, options)).body;
  }

  /**
   * Deletes an endpoint with its deliveries; pending ones are not sent.
   *
   * @example
   * ```ts
   * await client.webhooks.delete(webhookId);
   * ```
   */
  async delete(webhookId: string, options?: RequestOptions): Promise<void> {
    const call = {
      method: 'DELETE',
      path: path(webhookId),
      expect: 'none',
      idempotent: true,
    } as const;
    await send<void>(this.http, call, options);
  }

  /**
   * Replaces the signing secret and returns the new one, shown only this once. For 24 hours
   * deliveries, retries included, carry a signature by the new and one by the previous
   * secret, so a receiver verifies with either while it switches; rotating again at once
   * drops the previous one (a leaked secret). Not retried after a network failure: the
   * secret of a lost answer is lost, rotate again.
   *
   * @example
   * ```ts
   * const { secret } = await client.webhooks.rotateSecret(webhookId);
   * ```
   */
  async rotateSecret(webhookId: string, options?: RequestOptions): Promise<WebhookSecret> {
    const call = {
      method: 'POST',
      path: path(webhookId, '/rotate-secret'),
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<WebhookSecret>(this.http, call, options)).body;
  }

  /**
   * Queues a `webhook.test` event for the endpoint (enabled or not), delivered like any
   * other; answers the pending delivery.
   *
   * @example
   * ```ts
   * const delivery = await client.webhooks.test(webhookId);
   * ```
   */
  async test(webhookId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    const call = {
      method: 'POST',
      path: path(webhookId, '/test'),
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<WebhookDelivery>(this.http, call, options)).body;
  }

  /**
   * One page of the endpoint's deliveries, newest first (`limit` 1 to 100, default 20).
   *
   * @example
   * ```ts
   * const { deliveries, next_cursor } = await client.webhooks.deliveries(webhookId, { state: 'failed' });
   * ```
   */
  async deliveries(
    webhookId: string,
    query: WebhookDeliveryListQuery = {},
    options?: RequestOptions,
  ): Promise<WebhookDeliveryList> {
    const call = {
      method: 'GET',
      path: path(webhookId, '/deliveries'),
      query: { ...query },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<WebhookDeliveryList>(this.http, call, options)).body;
  }

  /**
   * One delivery: the event sent and how its attempts went.
   *
   * @example
   * ```ts
   * const { state, last_status } = await client.webhooks.delivery(webhookId, deliveryId);
   * ```
   */
  async delivery(
    webhookId: string,
    deliveryId: string,
    options?: RequestOptions,
  ): Promise<WebhookDelivery> {
    const call = {
      method: 'GET',
      path: deliveryPath(webhookId, deliveryId),
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<WebhookDelivery>(this.http, call, options)).body;
  }

  /**
   * Sends a delivery again now, with a fresh retry schedule; the body and `webhook-id` stay
   * the same, so a receiver that dedupes by `webhook-id` sees it once.
   *
   * @example
   * ```ts
   * await client.webhooks.retryDelivery(webhookId, deliveryId);
   * ```
   */
  async retryDelivery(
    webhookId: string,
    deliveryId: string,
    options?: RequestOptions,
  ): Promise<WebhookDelivery> {
    const call = {
      method: 'POST',
      path: deliveryPath(webhookId, deliveryId, '/retry'),
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<WebhookDelivery>(this.http, call, options)).body;
  }
}
