import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { requireAuth } from '../auth/context.ts';
import type { Database } from '../db/schema.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { HttpRequest } from '../http/types.ts';
import { parseJsonBody, validate } from '../http/validate.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { WebhookDeliveries } from './deliveries.ts';
import { WebhookEndpoints } from './endpoints.ts';
import { emitTestEvent } from './outbox.ts';
import {
  emptyBodySchema,
  type WebhookCreateBody,
  type WebhookUpdateBody,
  webhookCreatedSchema,
  webhookCreateSchema,
  webhookDeliveryListSchema,
  webhookDeliveryQuerySchema,
  webhookDeliverySchema,
  webhookEndpointSchema,
  webhookListSchema,
  webhookSecretSchema,
  webhookUpdateSchema,
} from './schemas.ts';
import { webhookDeliveryBody, webhookEndpointBody } from './views.ts';

/**
 * Every webhook route needs a key whose creator may manage webhooks: an endpoint receives
 * every session's transcript, so its URL is chosen by those who manage the workspace.
 */
const AUTH = { kind: 'workspace_key', permission: 'manage_webhooks' } as const;
const TAGS = ['webhooks'];
const NO_STORE = { 'cache-control': 'no-store' };

function scopeOf(auth: Parameters<typeof requireAuth>[0]): TenantScope {
  const caller = requireAuth(auth);
  return { workspaceId: caller.workspaceId, environment: caller.environment };
}

/** A POST that takes no body: empty, or `{}`. */
function refuseBody(request: HttpRequest): void {
  if (request.body.byteLength === 0) return;
  validate(emptyBodySchema, parseJsonBody(request.body, request.headers['content-type']), 'body');
}

/**
 * `/v1/webhooks`: a workspace's webhook endpoints in the key's environment, their signing
 * secrets (shown when made or rotated, never again), test events and delivery history.
 * Secrets are sealed with `box`, the deployment's secret box.
 */
export function webhookRoutes(db: Kysely<Database>, box: SecretBox): AnyRoute[] {
  const endpoints = new WebhookEndpoints(db, box);
  const deliveries = new WebhookDeliveries(db);
  const idOf = (request: HttpRequest) => request.params.webhookId ?? '';
  const deliveryIdOf = (request: HttpRequest) => request.params.deliveryId ?? '';
  return [
    defineRoute<WebhookCreateBody>({
      method: 'POST',
      path: '/v1/webhooks',
      operationId: 'createWebhook',
      errors: ['conflict'],
      summary:
        "Register an endpoint for the key's environment. The answer carries its signing secret, shown only this once. What the schema cannot state: the host is resolved at each delivery, and a delivery fails (and is retried) while the host does not resolve, or resolves to a private, loopback or other special-purpose address. A workspace has at most 20 endpoints per environment; one more is 409 `conflict`.",
      tags: TAGS,
      auth: AUTH,
      body: webhookCreateSchema,
      responses: {
        201: {
          description: 'The endpoint and its signing secret.',
          schema: webhookCreatedSchema,
          headers: { 'Cache-Control': 'no-store' },
        },
      },
      handle: async ({ auth, body }) => {
        const { endpoint, secret } = await endpoints.create(scopeOf(auth), body);
        return {
          status: 201,
          headers: NO_STORE,
          body: { ...webhookEndpointBody(endpoint), secret },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/webhooks',
      operationId: 'listWebhooks',
      summary: "The endpoints of the workspace in the key's environment, oldest first.",
      tags: TAGS,
      auth: AUTH,
      responses: { 200: { description: 'Every endpoint.', schema: webhookListSchema } },
      handle: async ({ auth }) => ({
        status: 200,
        body: { webhooks: (await endpoints.list(scopeOf(auth))).map(webhookEndpointBody) },
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/webhooks/:webhookId',
      operationId: 'getWebhook',
      errors: ['not_found'],
      summary: 'One endpoint (never its secret).',
      tags: TAGS,
      auth: AUTH,
      responses: { 200: { description: 'The endpoint.', schema: webhookEndpointSchema } },
      handle: async ({ auth, request }) => ({
        status: 200,
        body: webhookEndpointBody(await endpoints.get(scopeOf(auth), idOf(request))),
      }),
    }),
    defineRoute<WebhookUpdateBody>({
      method: 'PATCH',
      path: '/v1/webhooks/:webhookId',
      operationId: 'updateWebhook',
      errors: ['not_found'],
      summary: 'Change the fields given; the secret stays. `{}` changes nothing.',
      tags: TAGS,
      auth: AUTH,
      body: webhookUpdateSchema,
      responses: {
        200: { description: 'The endpoint after the change.', schema: webhookEndpointSchema },
      },
      handle: async ({ auth, request, body }) => {
        const scope = scopeOf(auth);
        const changed = Object.values(body).some((value) => value !== undefined);
        const endpoint = changed
          ? await endpoints.update(scope, idOf(request), body)
          : await endpoints.get(scope, idOf(request));
        return { status: 200, body: webhookEndpointBody(endpoint) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/webhooks/:webhookId',
      operationId: 'deleteWebhook',
      errors: ['not_found'],
      summary: 'Delete an endpoint with its deliveries; pending ones are not sent.',
      tags: TAGS,
      auth: AUTH,
      responses: { 204: { description: 'Deleted.' } },
      handle: async ({ auth, request }) => {
        await endpoints.remove(scopeOf(auth), idOf(request));
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/webhooks/:webhookId/rotate-secret',
      operationId: 'rotateWebhookSecret',
      errors: ['not_found'],
      summary:
        'Replace the signing secret (shown only this once). For 24 hours deliveries, retries included, carry signatures by the new and the previous secret, so receivers can switch without refusing any; rotating again at once drops the previous one. Body empty or `{}`.',
      tags: TAGS,
      auth: AUTH,
      requestContent: { 'application/json': emptyBodySchema },
      responses: {
        200: {
          description: 'The new signing secret.',
          schema: webhookSecretSchema,
          headers: { 'Cache-Control': 'no-store' },
        },
      },
      handle: async ({ auth, request }) => {
        refuseBody(request);
        const secret = await endpoints.rotateSecret(scopeOf(auth), idOf(request));
        return { status: 200, headers: NO_STORE, body: { secret } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/webhooks/:webhookId/test',
      operationId: 'testWebhook',
      errors: ['not_found'],
      summary:
        'Queue a `webhook.test` event for this endpoint, enabled or not; it is sent like any other. Body empty or `{}`.',
      tags: TAGS,
      auth: AUTH,
      requestContent: { 'application/json': emptyBodySchema },
      responses: { 202: { description: 'The queued delivery.', schema: webhookDeliverySchema } },
      handle: async ({ auth, request }) => {
        refuseBody(request);
        const scope = scopeOf(auth);
        const endpoint = await endpoints.get(scope, idOf(request));
        const deliveryId = await emitTestEvent(db, scope, endpoint.id, new Date());
        return {
          status: 202,
          body: webhookDeliveryBody(await deliveries.get(scope, endpoint.id, deliveryId)),
        };
      },
    }),
    defineRoute<undefined, z.infer<typeof webhookDeliveryQuerySchema>>({
      method: 'GET',
      path: '/v1/webhooks/:webhookId/deliveries',
      operationId: 'listWebhookDeliveries',
      errors: ['not_found'],
      summary: "One page of the endpoint's deliveries, newest first.",
      tags: TAGS,
      auth: AUTH,
      query: webhookDeliveryQuerySchema,
      responses: {
        200: { description: 'One page of deliveries.', schema: webhookDeliveryListSchema },
      },
      handle: async ({ auth, request, query }) => {
        const page = await deliveries.list(scopeOf(auth), idOf(request), {
          limit: query.limit,
          cursor: query.cursor,
          ...(query.state ? { state: query.state } : {}),
        });
        return {
          status: 200,
          body: {
            deliveries: page.deliveries.map(webhookDeliveryBody),
            next_cursor: page.nextCursor,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/webhooks/:webhookId/deliveries/:deliveryId',
      operationId: 'getWebhookDelivery',
      errors: ['not_found'],
      summary: 'One delivery: the event sent and how its attempts went.',
      tags: TAGS,
      auth: AUTH,
      responses: { 200: { description: 'The delivery.', schema: webhookDeliverySchema } },
      handle: async ({ auth, request }) => ({
        status: 200,
        body: webhookDeliveryBody(
          await deliveries.get(scopeOf(auth), idOf(request), deliveryIdOf(request)),
        ),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/webhooks/:webhookId/deliveries/:deliveryId/retry',
      operationId: 'retryWebhookDelivery',
      errors: ['not_found'],
      summary:
        'Send a delivery again now with a fresh retry schedule (`pending`, 0 attempts); the body and `webhook-id` stay the same. Body empty or `{}`.',
      tags: TAGS,
      auth: AUTH,
      requestContent: { 'application/json': emptyBodySchema },
      responses: { 202: { description: 'The delivery, due now.', schema: webhookDeliverySchema } },
      handle: async ({ auth, request }) => {
        refuseBody(request);
        const delivery = await deliveries.redeliver(
          scopeOf(auth),
          idOf(request),
          deliveryIdOf(request),
        );
        return { status: 202, body: webhookDeliveryBody(delivery) };
      },
    }),
  ];
}
