import { expect } from 'vitest';
import type { ConsentPlan, FakeGoogle, FakeGoogleAccount } from '../fakes/google.ts';
import type { ApiClient } from './agents.ts';

export const CALLBACK_PATH = '/v1/google-calendar/oauth/callback';

/** The scopes Google reports after a full consent to what the service asks. */
export const GRANTED_SCOPES = [
  'https://www.googleapis.com/auth/calendar.events',
  'openid',
  'https://www.googleapis.com/auth/userinfo.email',
];

/**
 * Plays the end user's browser: opens `authorizationUrl` at the fake Google (which consents
 * as planned and redirects), then follows that redirect to the service's callback, without
 * following the callback's own redirect.
 */
export async function followConsent(authorizationUrl: string): Promise<Response> {
  const atGoogle = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(atGoogle.status, await atGoogle.clone().text()).toBe(302);
  const back = atGoogle.headers.get('location') ?? '';
  return fetch(back, { redirect: 'manual' });
}

/** The URL Google sent the browser back to, for a test that replays it. */
export async function consentRedirect(authorizationUrl: string): Promise<string> {
  const atGoogle = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(atGoogle.status).toBe(302);
  return atGoogle.headers.get('location') ?? '';
}

/** Starts a flow for `endUserId` through the api and consents as `account`. */
export async function connectCalendar(
  api: ApiClient,
  fake: FakeGoogle,
  endUserId: string,
  account: FakeGoogleAccount,
  options: { returnUrl?: string; plan?: Partial<ConsentPlan> } = {},
): Promise<{ state: string; callback: Response }> {
  const reply = await api('POST', '/v1/google-calendar/oauth-requests', {
    end_user_id: endUserId,
    ...(options.returnUrl ? { return_url: options.returnUrl } : {}),
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  fake.planConsent({ account, decision: 'allow', ...options.plan });
  return { state: reply.body.state, callback: await followConsent(reply.body.authorization_url) };
}
