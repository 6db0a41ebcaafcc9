import { Webhook } from 'standardwebhooks';

export const WEBHOOK_USER_AGENT = 'awp-webhooks/1';

/**
 * The headers of one attempt, per Standard Webhooks: `webhook-id` (the event's id, the same
 * on every retry and for every endpoint), `webhook-timestamp` (unix seconds of the attempt)
 * and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed
 * with the endpoint's `whsec_` secret; one such signature per secret, space-separated).
 *
 * @example
 * const headers = signedHeaders({ eventId: 'evt_1', payload: '{}', secrets: [secret], at: new Date() });
 * headers['webhook-signature']; // 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='
 */
export function signedHeaders(input: {
  eventId: string;
  payload: string;
  /** The endpoint's secrets: one, or after a rotation the new one and the previous one. */
  secrets: readonly string[];
  at: Date;
}): Record<string, string> {
  // Several signatures are space-separated; a receiver accepts the request if one matches.
  const signature = input.secrets
    .map((secret) => new Webhook(secret).sign(input.eventId, input.at, input.payload))
    .join(' ');
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': input.eventId,
    'webhook-timestamp': String(Math.floor(input.at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}
