// The headers of a webhook attempt, per Standard Webhooks.

import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../../src/webhooks/signing.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('signedHeaders', () => {
  it('names the event, the attempt second and the HMAC-SHA256 of id.timestamp.body', () => {
    const payload = '{"id":"evt_1","type":"webhook.test","data":{"note":"héllo ✓"}}';
    const at = new Date('2026-05-01T10:20:30.999Z');
    const headers = signedHeaders({ eventId: 'evt_1', payload, secrets: [SECRET], at });
    const expected = createHmac('sha256', Buffer.alloc(32, 7))
      .update(`evt_1.1777630830.${payload}`, 'utf8')
      .digest('base64');
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'awp-webhooks/1',
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1777630830',
      'webhook-signature': `v1,${expected}`,
    });
  });

  it('verifies with the Standard Webhooks library under the same secret only', () => {
    const payload = '{"a":1}';
    const headers = signedHeaders({ eventId: 'evt_2', payload, secrets: [SECRET], at: new Date() });
    expect(new Webhook(SECRET).verify(payload, headers)).toEqual({ a: 1 });
    const other = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
    expect(() => new Webhook(other).verify(payload, headers)).toThrow(
      'No matching signature found',
    );
  });

  it('signs with every secret given, space-separated, so either verifies', () => {
    const payload = '{"a":2}';
    const previous = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const at = new Date();
    const headers = signedHeaders({ eventId: 'evt_3', payload, secrets: [SECRET, previous], at });
    const [current, old] = (headers['webhook-signature'] ?? '').split(' ');
    expect(current).toBe(
      signedHeaders({ eventId: 'evt_3', payload, secrets: [SECRET], at })['webhook-signature'],
    );
    expect(old).toBe(
      signedHeaders({ eventId: 'evt_3', payload, secrets: [previous], at })['webhook-signature'],
    );
    expect(new Webhook(SECRET).verify(payload, headers)).toEqual({ a: 2 });
    expect(new Webhook(previous).verify(payload, headers)).toEqual({ a: 2 });
  });
});
