import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './types/webhooks.ts';

/** Why a request was not accepted as a webhook of the service. */
export type WebhookVerificationReason =
  /** `webhook-id`, `webhook-timestamp` or `webhook-signature` is missing. */
  | 'missing_headers'
  /** `webhook-timestamp` is not a number of seconds. */
  | 'invalid_timestamp'
  /** The timestamp is further from now than the tolerance: a replay or a wrong clock. */
  | 'timestamp_out_of_tolerance'
  /** No `v1` signature matches: another secret, or the body or headers were changed. */
  | 'invalid_signature'
  /** Correctly signed, but the body is not a JSON event. */
  | 'invalid_payload';

/**
 * Thrown by {@link verifyWebhook} for a request to refuse (answer it 400 or 401). Match on
 * `reason`, never on the message.
 *
 * @example
 * ```ts
 * try {
 *   verifyWebhook(body, req.headers, secret);
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) console.warn('refused', error.reason);
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number;
}

/** Request headers as node:http (`IncomingHttpHeaders`), Express or fetch give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    const fetchHeaders = headers as Headers;
    return (name) => fetchHeaders.get(name) ?? undefined;
  }
  const byName = new Map<string, string | string[] | undefined>();
  for (const [name, value] of Object.entries(headers)) byName.set(name.toLowerCase(), value);
  // A header sent twice arrives as an array: signatures are a space-separated list.
  return (name) => {
    const value = byName.get(name);
    if (!Array.isArray(value)) return value;
    return name === 'webhook-signature' ? value.join(' ') : value[0];
  };
}

function sameSignature(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.byteLength === right.byteLength && timingSafeEqual(left, right);
}

/**
 * Verifies a webhook request of the service (Standard Webhooks: an HMAC-SHA256 signature
 * in `webhook-signature` over `webhook-id`, `webhook-timestamp` and the body) and returns
 * its event. Pass the body exactly as received, before any JSON parsing: a re-serialized
 * body does not verify. Throws {@link WebhookVerificationError} for a request to refuse.
 *
 * A delivery can arrive more than once (retries are at-least-once): skip an event whose
 * `webhook-id` (also `event.id`) you have already handled.
 *
 * @param body The raw request body.
 * @param headers The request's headers: a fetch `Headers`, or node:http's/Express's object.
 * @param secret The endpoint's signing secret (`whsec_...`).
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { verifyWebhook, WebhookVerificationError } from '@awp/backend-sdk';
 *
 * // The whole transcript of a long session can pass express's default 100 KB limit.
 * const raw = express.raw({ type: 'application/json', limit: '2mb' });
 * app.post('/awp/webhooks', raw, (req, res) => {
 *   let event;
 *   try {
 *     event = verifyWebhook(req.body, req.headers, process.env.AWP_WEBHOOK_SECRET!);
 *   } catch (error) {
 *     if (error instanceof WebhookVerificationError) return res.sendStatus(400);
 *     throw error;
 *   }
 *   if (event.type === 'agent_session.ended') console.log(event.data.transcript.length);
 *   res.sendStatus(204);
 * });
 * ```
 */
export function verifyWebhook(
  body: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  let signer: Webhook;
  try {
    signer = new Webhook(secret);
  } catch (cause) {
    throw new TypeError('secret must be a webhook signing secret (whsec_...)', { cause });
  }
  const header = headerReader(headers);
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'missing_headers',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  }
  if (!/^\d{1,15}$/.test(timestamp.trim())) {
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not a number');
  }
  const sentAtSeconds = Number(timestamp.trim());
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(Date.now() / 1000 - sentAtSeconds) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `webhook-timestamp is more than ${toleranceSeconds} s from now`,
    );
  }
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const expected = signer.sign(id, new Date(sentAtSeconds * 1000), text).split(',')[1] ?? '';
  const matches = signatures
    .split(' ')
    .some((entry) => entry.startsWith('v1,') && sameSignature(entry.slice(3), expected));
  if (!matches) {
    throw new WebhookVerificationError('invalid_signature', 'no webhook-signature matches');
  }
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the body is not JSON');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new WebhookVerificationError('invalid_payload', 'the body is not an event object');
  }
  return event as WebhookEvent;
}
