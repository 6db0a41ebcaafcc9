import { describe, expect, it } from 'vitest';
import { returnLocation } from '../../../src/agents/capabilities/calendar/callback-page.ts';
import { googleFailure } from '../../../src/agents/capabilities/calendar/google-errors.ts';
import { IdTokenError, readIdToken } from '../../../src/agents/capabilities/calendar/id-token.ts';

const CLIENT = 'client-1.apps.googleusercontent.com';
const now = new Date('2025-03-04T12:00:00Z');
const exp = Math.floor(now.getTime() / 1000) + 3600;

function jwt(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', kid: 'k' })}.${part(claims)}.c2lnbmF0dXJl`;
}

describe('ID tokens from the code exchange', () => {
  const valid = {
    iss: 'https://accounts.google.com',
    aud: CLIENT,
    sub: '1234',
    email: 'ada@example.com',
    exp,
  };

  it('name the Google account', () => {
    expect(readIdToken(jwt(valid), CLIENT, now)).toEqual({
      subject: '1234',
      email: 'ada@example.com',
    });
    expect(readIdToken(jwt({ ...valid, iss: 'accounts.google.com' }), CLIENT, now).subject).toBe(
      '1234',
    );
  });

  it('are refused when not Google’s, not for this client, expired or incomplete', () => {
    for (const claims of [
      { ...valid, iss: 'https://evil.example.com' },
      { ...valid, aud: 'another-client' },
      { ...valid, exp: exp - 2 * 3600 },
      { ...valid, email: undefined },
      { ...valid, sub: '' },
    ]) {
      expect(() => readIdToken(jwt(claims), CLIENT, now)).toThrow(IdTokenError);
    }
    expect(() => readIdToken('not-a-jwt', CLIENT, now)).toThrow(IdTokenError);
    expect(() => readIdToken('a.b%%.c', CLIENT, now)).toThrow(IdTokenError);
  });
});

describe('Google failures', () => {
  const gaxios = (status: number, data: unknown) => ({
    response: { status, data },
    config: { data: 'refresh_token=1//secret&client_secret=GOCSPX-secret' },
  });

  it('are read from OAuth and Calendar error bodies only', () => {
    const grant = googleFailure(
      gaxios(400, { error: 'invalid_grant', error_description: 'Bad Request' }),
    );
    expect([grant.kind, grant.status, grant.reason]).toEqual([
      'invalid_grant',
      400,
      'invalid_grant',
    ]);
    expect(grant.message).not.toContain('secret');
    const limit = googleFailure(
      gaxios(403, {
        error: {
          code: 403,
          message: 'Rate Limit Exceeded',
          errors: [{ reason: 'rateLimitExceeded' }],
        },
      }),
    );
    expect([limit.kind, limit.googleMessage]).toEqual(['rate_limited', 'Rate Limit Exceeded']);
    const forbidden = googleFailure(
      gaxios(403, { error: { code: 403, errors: [{ reason: 'forbiddenForNonOrganizer' }] } }),
    );
    expect(forbidden.kind).toBe('rejected');
    expect(googleFailure(gaxios(401, '{"error":{"code":401}}')).kind).toBe('unauthenticated');
    expect(googleFailure(gaxios(429, 'Too Many Requests')).kind).toBe('rate_limited');
    expect(googleFailure(gaxios(404, {})).kind).toBe('not_found');
    expect(googleFailure(gaxios(502, '<html>')).kind).toBe('unavailable');
    expect(googleFailure(new Error('ECONNREFUSED')).kind).toBe('unavailable');
  });
});

describe('the callback’s return location', () => {
  it('adds the outcome and state, keeping the app’s own query', () => {
    const url = 'https://app.example.com/back?tab=calendar&google_calendar=stale#top';
    expect(returnLocation(url, { result: 'connected', returnUrl: url, state: 's1' })).toBe(
      'https://app.example.com/back?tab=calendar&google_calendar=connected&google_calendar_state=s1#top',
    );
    expect(returnLocation(url, { result: 'access_denied', returnUrl: url, state: 's1' })).toBe(
      'https://app.example.com/back?tab=calendar&google_calendar=error&google_calendar_error=access_denied&google_calendar_state=s1#top',
    );
  });
});
