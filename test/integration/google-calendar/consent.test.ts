// The Google Calendar consent round trip over real HTTP against a fake Google: the OAuth
// request, Google's consent page, the callback's code exchange (PKCE, client secret), the
// stored connection, and the callback's refusals (used, expired, forged states, a declined
// consent, a missing calendar scope, a failed exchange), each ending where the browser
// lands.
import { createHash, randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { FakeGoogle } from '../../fakes/google.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, apiClient } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import {
  CALLBACK_PATH,
  connectCalendar,
  consentRedirect,
  followConsent,
  GRANTED_SCOPES,
} from '../../helpers/google-calendar.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const RETURN_URL = 'https://app.example.com/settings?tab=calendar';

/** Where the callback sent the browser, as an object of its query. */
function landing(callback: Response): { url: string; query: Record<string, string> } {
  expect(callback.status).toBe(303);
  const url = new URL(callback.headers.get('location') ?? '');
  return { url: `${url.origin}${url.pathname}`, query: Object.fromEntries(url.searchParams) };
}

describeEachDialect('Google Calendar consent on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let fake: FakeGoogle;
  let ws: SeededWorkspace;
  let api: ApiClient;

  const tokenRequests = () => fake.requests.filter((request) => request.path === '/token');
  const start = async (endUserId: string, returnUrl: string | undefined = RETURN_URL) => {
    const reply = await api('POST', '/v1/google-calendar/oauth-requests', {
      end_user_id: endUserId,
      ...(returnUrl ? { return_url: returnUrl } : {}),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as { authorization_url: string; state: string; expires_at: string };
  };

  beforeAll(
    async ({ databases, apis }) => {
      fake = await FakeGoogle.start();
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, { env: { ...fake.env(), RUN_JOBS_IN_PROCESS: 'false' } });
      fake.allowRedirectUri(`${server.url}${CALLBACK_PATH}`);
      api = apiClient(server.url, ws.productionKey);
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await fake?.close();
  });

  it('connects an end user through Google and sends the browser to return_url', async () => {
    const endUserId = randomUUID();
    const before = Date.now();
    const reply = await api('POST', '/v1/google-calendar/oauth-requests', {
      end_user_id: endUserId.toUpperCase(),
      return_url: RETURN_URL,
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const { authorization_url, state, expires_at } = reply.body;
    expect(Object.keys(reply.body).sort()).toEqual(['authorization_url', 'expires_at', 'state']);
    expect(Date.parse(expires_at) - before).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    const url = new URL(authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/o/oauth2/v2/auth`);
    const query = Object.fromEntries(url.searchParams);
    expect(query).toEqual({
      access_type: 'offline',
      client_id: fake.clientId,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
      prompt: 'consent',
      redirect_uri: `${server.url}${CALLBACK_PATH}`,
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/calendar.events openid email',
      state,
    });

    const ada = fake.account('ada@example.com');
    fake.planConsent({ account: ada, decision: 'allow' });
    const callback = await followConsent(authorization_url);
    expect(callback.headers.get('cache-control')).toBe('no-store');
    expect(callback.headers.get('referrer-policy')).toBe('no-referrer');
    expect(landing(callback)).toEqual({
      url: 'https://app.example.com/settings',
      query: { tab: 'calendar', google_calendar: 'connected', google_calendar_state: state },
    });

    // The exchange: the code with its PKCE verifier, the same redirect URI, the secret.
    const [exchange] = tokenRequests().slice(-1);
    expect(exchange?.form).toEqual({
      grant_type: 'authorization_code',
      code: expect.stringMatching(/^4\/0A/),
      code_verifier: expect.any(String),
      redirect_uri: `${server.url}${CALLBACK_PATH}`,
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
    });
    const verifier = exchange?.form?.code_verifier ?? '';
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(query.code_challenge);

    const connection = await api('GET', `/v1/google-calendar/connections/${endUserId}`);
    expect(connection.status).toBe(200);
    expect(connection.body).toEqual({
      end_user_id: endUserId,
      google_email: 'ada@example.com',
      scopes: GRANTED_SCOPES,
      status: 'connected',
      connected_at: expect.stringMatching(ISO),
    });

    // Stored sealed: neither the state nor a token appears in the database.
    const refreshToken = fake.refreshTokens.at(-1) ?? '';
    const accessToken = fake.accessTokens.at(-1) ?? '';
    const rows = JSON.stringify([
      await handle.db.selectFrom('google_calendar_connections').selectAll().execute(),
      await handle.db.selectFrom('google_calendar_oauth_requests').selectAll().execute(),
    ]);
    for (const secret of [refreshToken, accessToken, state, verifier]) {
      expect(rows).not.toContain(secret);
    }
    expect(rows).toContain(createHash('sha256').update(state).digest('hex'));
  });

  it('answers a small page when the flow named no return_url', async () => {
    const ada = fake.account('ada@example.com');
    const { callback } = await connectCalendar(api, fake, randomUUID(), ada);
    expect(callback.status).toBe(200);
    expect(callback.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await callback.text();
    expect(html).toContain('<meta name="google-calendar-result" content="connected">');
    expect(html).toContain('Google Calendar connected');
  });

  it('uses a state once: a replayed redirect is refused without a second exchange', async () => {
    const flow = await start(randomUUID());
    fake.planConsent({ account: fake.account('ada@example.com'), decision: 'allow' });
    const back = await consentRedirect(flow.authorization_url);
    const first = await fetch(back, { redirect: 'manual' });
    expect(landing(first).query.google_calendar).toBe('connected');
    const exchanges = tokenRequests().length;

    const replay = await fetch(back, { redirect: 'manual' });
    expect(landing(replay).query).toEqual({
      tab: 'calendar',
      google_calendar: 'error',
      google_calendar_error: 'state_used',
      google_calendar_state: flow.state,
    });
    expect(tokenRequests()).toHaveLength(exchanges);
  });

  it('answers a page with the status of what failed: 403 not granted, 409 used', async () => {
    const flow = await start(randomUUID(), '');
    fake.planConsent({ account: fake.account('ada@example.com'), decision: 'deny' });
    const back = await consentRedirect(flow.authorization_url);
    const declined = await fetch(back, { redirect: 'manual' });
    expect(declined.status).toBe(403);
    expect(await declined.text()).toContain('content="access_denied"');
    const replay = await fetch(back, { redirect: 'manual' });
    expect(replay.status).toBe(409);
    expect(await replay.text()).toContain('content="state_used"');
  });

  it('refuses a state past its ten minutes', async () => {
    const endUserId = randomUUID();
    const flow = await start(endUserId);
    await handle.db
      .updateTable('google_calendar_oauth_requests')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('end_user_id', '=', endUserId)
      .execute();
    fake.planConsent({ account: fake.account('ada@example.com'), decision: 'allow' });
    const exchanges = tokenRequests().length;
    const callback = await followConsent(flow.authorization_url);
    expect(landing(callback).query.google_calendar_error).toBe('state_expired');
    expect(tokenRequests()).toHaveLength(exchanges);
    expect((await api('GET', `/v1/google-calendar/connections/${endUserId}`)).status).toBe(404);
  });

  it('refuses forged and missing states with a 404 page and empty values with 400, never calling Google', async () => {
    const exchanges = tokenRequests().length;
    for (const query of ['?state=forged-state&code=4/0Aforged', '?code=4/0Aforged']) {
      const callback = await fetch(`${server.url}${CALLBACK_PATH}${query}`, { redirect: 'manual' });
      expect(callback.status).toBe(404);
      expect(callback.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await callback.text();
      expect(html).toContain('content="state_invalid"');
      expect(html).not.toMatch(/at .*\.js|Error:/);
    }
    // Empty parameters, or neither code nor error, are outside the documented query: the
    // error object, as any route.
    for (const query of ['?state=&code=4/0Aforged', '?state=forged-state&code=', '', '?state=s']) {
      const callback = await fetch(`${server.url}${CALLBACK_PATH}${query}`, { redirect: 'manual' });
      expect([callback.status, ((await callback.json()) as { code: string }).code]).toEqual([
        400,
        'invalid_request',
      ]);
    }
    expect(tokenRequests()).toHaveLength(exchanges);
  });

  it('reports a declined consent, a missing calendar scope and a failed exchange', async () => {
    const ada = fake.account('ada@example.com');
    const denied = randomUUID();
    const declined = await connectCalendar(api, fake, denied, ada, {
      returnUrl: RETURN_URL,
      plan: { decision: 'deny' },
    });
    expect(landing(declined.callback).query).toEqual({
      tab: 'calendar',
      google_calendar: 'error',
      google_calendar_error: 'access_denied',
      google_calendar_state: declined.state,
    });

    // Granular consent: the user left the calendar unticked; the grant is given back.
    const unticked = randomUUID();
    const scoped = await connectCalendar(api, fake, unticked, ada, {
      returnUrl: RETURN_URL,
      plan: { grantScopes: ['openid', 'email'] },
    });
    expect(landing(scoped.callback).query.google_calendar_error).toBe('scope_denied');
    const refreshToken = fake.refreshTokens.at(-1) ?? '';
    expect(fake.refreshTokenValid(refreshToken)).toBe(false);
    expect(fake.requests.at(-1)).toMatchObject({ path: '/revoke', query: { token: refreshToken } });

    const refused = randomUUID();
    fake.failNext('token', 400, { error: 'invalid_grant', error_description: 'Bad Request' });
    const exchange = await connectCalendar(api, fake, refused, ada, { returnUrl: RETURN_URL });
    expect(landing(exchange.callback).query.google_calendar_error).toBe('exchange_failed');

    for (const endUserId of [denied, unticked, refused]) {
      const reply = await api('GET', `/v1/google-calendar/connections/${endUserId}`);
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('not_found');
    }
  });
});
