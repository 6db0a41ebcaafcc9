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
    const headers = signedHeaders({ eventId: 'evt_1', payload, secret: SECRET, at });
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
    const headers = signedHeaders({ eventId: 'evt_2', payload, secret: SECRET, at: new Date() });
    expect(new Webhook(SECRET).verify(payload, headers)).toEqual({ a: 1 });
    const other = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
    expect(() => new Webhook(other).verify(payload, headers)).toThrow(
      'No matching signature found',
    );
  });
});
