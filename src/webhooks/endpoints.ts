import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { randomBase62 } from '../auth/key-format.ts';
import type { Database, WebhookEndpointsTable } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { isWebhookEventType, type WebhookEventType } from './event-types.ts';

/** An endpoint as callers see it: never its secret, which is shown once when made. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  events: WebhookEventType[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookEndpointInput {
  url: string;
  events: string[];
  description?: string | undefined;
  enabled?: boolean | undefined;
}

/** How long the secret before a rotation still signs deliveries beside the new one. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60_000;

/** Endpoints one workspace may have in one environment. */
export const MAX_ENDPOINTS_PER_SCOPE = 20;
const MAX_URL_LENGTH = 2048;

/**
 * A workspace's webhook endpoints. Secrets are Standard Webhooks secrets (`whsec_` and the
 * base64 of 32 random bytes), sealed with the deployment's {@link SecretBox} under the
 * endpoint's id and opened only to sign a delivery.
 */
export class WebhookEndpoints {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(
    scope: TenantScope,
    input: WebhookEndpointInput,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const url = checkedUrl(input.url);
    const events = checkedEvents(input.events);
    const existing = await this.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .$call(inScope(scope))
      .executeTakeFirstOrThrow();
    // The request is well formed; the workspace's state refuses it until one is deleted.
    if (Number(existing.count) >= MAX_ENDPOINTS_PER_SCOPE) {
      throw new ApiError(
        'conflict',
        `A workspace may have at most ${MAX_ENDPOINTS_PER_SCOPE} webhook endpoints per environment.`,
      );
    }
    const id = `wh_${randomBase62(20)}`;
    const secret = newSecret();
    const now = this.now().toISOString();
    await this.db
      .insertInto('webhook_endpoints')
      .values({
        id,
        workspace_id: scope.workspaceId,
        environment: scope.environment,
        url,
        description: checkedDescription(input.description),
        events: JSON.stringify(events),
        enabled: input.enabled === false ? 0 : 1,
        secret_ciphertext: this.box.seal(secret, id),
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { endpoint: await this.get(scope, id), secret };
  }

  /** The scope's endpoints, oldest first (at most {@link MAX_ENDPOINTS_PER_SCOPE}). */
  async list(scope: TenantScope): Promise<WebhookEndpoint[]> {
    const rows = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .$call(inScope(scope))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toEndpoint);
  }

  async get(scope: TenantScope, id: string): Promise<WebhookEndpoint> {
    return toEndpoint(await this.#row(scope, id));
  }

  /** Changes the fields given; the secret stays. */
  async update(
    scope: TenantScope,
    id: string,
    patch: Partial<WebhookEndpointInput>,
  ): Promise<WebhookEndpoint> {
    await this.#row(scope, id);
    await this.db
      .updateTable('webhook_endpoints')
      .set({
        ...(patch.url !== undefined ? { url: checkedUrl(patch.url) } : {}),
        ...(patch.events !== undefined
          ? { events: JSON.stringify(checkedEvents(patch.events)) }
          : {}),
        ...(patch.description !== undefined
          ? { description: checkedDescription(patch.description) }
          : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled ? 1 : 0 } : {}),
        updated_at: this.now().toISOString(),
      })
      .where('id', '=', id)
      .execute();
    return this.get(scope, id);
  }

  /** Deletes the endpoint and its deliveries, sent or not. */
  async remove(scope: TenantScope, id: string): Promise<void> {
    await this.#row(scope, id);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
      await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
    });
  }

  /**
   * Replaces the signing secret and returns the new one. For the next
   * {@link PREVIOUS_SECRET_GRACE_MS} every delivery, retries included, is signed with both
   * (Standard Webhooks' several signatures), so a receiver can switch without refusing any;
   * rotating again at once drops the old one (a leaked secret).
   */
  async rotateSecret(scope: TenantScope, id: string): Promise<string> {
    const row = await this.#row(scope, id);
    const secret = newSecret();
    const now = this.now();
    await this.db
      .updateTable('webhook_endpoints')
      .set({
        secret_ciphertext: this.box.seal(secret, id),
        previous_secret_ciphertext: row.secret_ciphertext,
        previous_secret_expires_at: new Date(
          now.getTime() + PREVIOUS_SECRET_GRACE_MS,
        ).toISOString(),
        updated_at: now.toISOString(),
      })
      .where('id', '=', id)
      .execute();
    return secret;
  }

  /**
   * Where to send a delivery of the endpoint and the secrets to sign it with (the current
   * one first, then the previous one while it is still valid); null once it is deleted.
   */
  async target(id: string): Promise<{ url: string; secrets: string[] } | null> {
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .select([
        'url',
        'secret_ciphertext',
        'previous_secret_ciphertext',
        'previous_secret_expires_at',
      ])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    const secrets = [this.box.open(row.secret_ciphertext, id)];
    if (
      row.previous_secret_ciphertext !== null &&
      row.previous_secret_expires_at !== null &&
      row.previous_secret_expires_at > this.now().toISOString()
    ) {
      secrets.push(this.box.open(row.previous_secret_ciphertext, id));
    }
    return { url: row.url, secrets };
  }

  async #row(scope: TenantScope, id: string): Promise<Selectable<WebhookEndpointsTable>> {
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .$call(inScope(scope))
      .executeTakeFirst();
    if (!row) throw new ApiError('not_found', `No webhook endpoint ${id} in this environment.`);
    return row;
  }
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** An absolute http(s) URL without credentials, at most 2,048 characters. */
export function checkedUrl(value: string): string {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ApiError('invalid_request', 'url must be an absolute http or https URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ApiError('invalid_request', 'url must be an absolute http or https URL.');
  if (url.username !== '' || url.password !== '')
    throw new ApiError('invalid_request', 'url must not carry a user name or password.');
  if (text.length > MAX_URL_LENGTH)
    throw new ApiError('invalid_request', `url must be at most ${MAX_URL_LENGTH} characters.`);
  return url.toString();
}

function checkedEvents(values: string[]): WebhookEventType[] {
  const unknown = values.filter((value) => !isWebhookEventType(value));
  if (unknown.length > 0)
    throw new ApiError('invalid_request', `Unknown event type: ${unknown.join(', ')}.`);
  if (values.length === 0)
    throw new ApiError('invalid_request', 'events must name at least one event type.');
  return [...new Set(values)] as WebhookEventType[];
}

function checkedDescription(value: string | undefined): string {
  const text = (value ?? '').trim();
  if (text.length > 200)
    throw new ApiError('invalid_request', 'description must be at most 200 characters.');
  return text;
}

function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as WebhookEventType[],
    enabled: row.enabled === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
