import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import type { WebhookDeliveries } from '../../webhooks/deliveries.ts';
import type { WebhookEndpoints } from '../../webhooks/endpoints.ts';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/event-types.ts';
import { emitTestEvent } from '../../webhooks/outbox.ts';
import { deliveryCursorSchema } from '../../webhooks/schemas.ts';
import { webhookDeliveryBody, webhookEndpointBody } from '../../webhooks/views.ts';
import { WEBHOOK_MANAGER_ROLES } from '../../workspaces/roles.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { operatorRoute } from '../route.ts';

/** Deliveries one page of an endpoint's deliveries holds unless `limit` says otherwise. */
const DELIVERIES_PER_PAGE = 20;

const events = z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length);

const createSchema = z.strictObject({
  url: z.string().min(1).max(2048),
  events,
  description: z.string().max(200).optional(),
  enabled: z.boolean().optional(),
});

const updateSchema = createSchema.partial();

const deliveriesQuery = z.strictObject({
  cursor: deliveryCursorSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

/** Answers holding a signing secret, or what endpoints received, are never cached. */
const NO_STORE = { 'cache-control': 'no-store' };

function scopeOf(member: OperatorPrincipal, request: HttpRequest): TenantScope {
  return { workspaceId: member.workspaceId, environment: request.environment };
}

/**
 * Webhooks (the dashboard's Config › Webhooks page): the endpoints of the listener's
 * environment with the `/v1/webhooks` body of each, the signing secret in the answers of
 * create and rotate only, a test event, and an endpoint's deliveries newest first with
 * manual retry. Owner and Admin only.
 */
export function webhookRoutes(
  guard: OperatorGuard,
  db: Kysely<Database>,
  endpoints: WebhookEndpoints,
  deliveries: WebhookDeliveries,
): AnyRoute[] {
  const endpointId = (request: HttpRequest) => request.params.webhookId ?? '';
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/webhooks',
      operationId: 'operatorListWebhooks',
      summary:
        'The endpoints of the environment, oldest first, never their secrets; and the event types an endpoint may subscribe to.',
      roles: WEBHOOK_MANAGER_ROLES,
      handle: async ({ member, request }) => ({
        status: 200,
        body: {
          webhooks: (await endpoints.list(scopeOf(member, request))).map(webhookEndpointBody),
          event_types: WEBHOOK_EVENT_TYPES,
        },
      }),
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/webhooks',
      operationId: 'operatorCreateWebhook',
      summary: 'Creates an endpoint; its signing secret is in this answer only.',
      roles: WEBHOOK_MANAGER_ROLES,
      body: createSchema,
      errors: ['invalid_request'],
      handle: async ({ member, request, body }) => {
        const created = await endpoints.create(scopeOf(member, request), body);
        return {
          status: 201,
          headers: NO_STORE,
          body: { webhook: { ...webhookEndpointBody(created.endpoint), secret: created.secret } },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'PATCH',
      path: '/webhooks/:webhookId',
      operationId: 'operatorUpdateWebhook',
      summary: 'Changes the URL, events, description or enabled of an endpoint; the secret stays.',
      roles: WEBHOOK_MANAGER_ROLES,
      body: updateSchema,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request, body }) => ({
        status: 200,
        body: {
          webhook: webhookEndpointBody(
            await endpoints.update(scopeOf(member, request), endpointId(request), body),
          ),
        },
      }),
    }),
    operatorRoute(guard, {
      method: 'DELETE',
      path: '/webhooks/:webhookId',
      operationId: 'operatorDeleteWebhook',
      summary: 'Deletes an endpoint and its deliveries, sent or not.',
      roles: WEBHOOK_MANAGER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        await endpoints.remove(scopeOf(member, request), endpointId(request));
        return { status: 204 };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/webhooks/:webhookId/rotate-secret',
      operationId: 'operatorRotateWebhookSecret',
      summary:
        'Replaces the signing secret; the new one is in this answer only. For 24 hours the previous one signs beside it; rotating again at once drops the previous one.',
      roles: WEBHOOK_MANAGER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        const scope = scopeOf(member, request);
        const secret = await endpoints.rotateSecret(scope, endpointId(request));
        const endpoint = await endpoints.get(scope, endpointId(request));
        return {
          status: 200,
          headers: NO_STORE,
          body: { webhook: { ...webhookEndpointBody(endpoint), secret } },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/webhooks/:webhookId/test',
      operationId: 'operatorTestWebhook',
      summary: 'Queues a `webhook.test` event for the endpoint, enabled or not.',
      roles: WEBHOOK_MANAGER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        const scope = scopeOf(member, request);
        await endpoints.get(scope, endpointId(request));
        const id = await emitTestEvent(db, scope, endpointId(request), new Date());
        const delivery = await deliveries.get(scope, endpointId(request), id);
        return { status: 201, body: { delivery: webhookDeliveryBody(delivery) } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/webhooks/:webhookId/deliveries',
      operationId: 'operatorListWebhookDeliveries',
      summary:
        'The deliveries of an endpoint, newest first (older than `cursor`), with the body each sent, and `next_cursor`.',
      roles: WEBHOOK_MANAGER_ROLES,
      query: deliveriesQuery,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request, query }) => {
        const page = await deliveries.list(scopeOf(member, request), endpointId(request), {
          limit: query.limit ?? DELIVERIES_PER_PAGE,
          cursor: query.cursor,
        });
        return {
          status: 200,
          headers: NO_STORE,
          body: {
            deliveries: page.deliveries.map(webhookDeliveryBody),
            next_cursor: page.nextCursor,
          },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/webhooks/:webhookId/deliveries/:deliveryId/retry',
      operationId: 'operatorRetryWebhookDelivery',
      summary:
        'Sends a delivery again, now, with a fresh retry schedule: the same body and `webhook-id`.',
      roles: WEBHOOK_MANAGER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        const delivery = await deliveries.redeliver(
          scopeOf(member, request),
          endpointId(request),
          request.params.deliveryId ?? '',
        );
        return { status: 200, body: { delivery: webhookDeliveryBody(delivery) } };
      },
    }),
  ];
}
