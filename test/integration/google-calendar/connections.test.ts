// Google Calendar connections over real HTTP against a fake Google: scoped to a workspace
// and environment, replaced by a reconnect (the earlier grant revoked only when it was
// another Google account's), deleted with a revocation at Google that is best effort,
// input refused at the edge, and no token, code, state or secret in the api's logs.
import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { FakeGoogle } from '../../fakes/google.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, type ApiReply, apiClient } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { CALLBACK_PATH, calendarTools, connectCalendar } from '../../helpers/google-calendar.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

const connectionPath = (endUserId: string) => `/v1/google-calendar/connections/${endUserId}`;

function expectError(reply: ApiReply, status: number, code: string) {
  expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
}

describeEachDialect('Google Calendar connections on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let fake: FakeGoogle;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let api: ApiClient;
  let devApi: ApiClient;
  let otherApi: ApiClient;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await FakeGoogle.start();
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      other = await seedWorkspace(handle);
      server = await apis.start(database, { env: { ...fake.env(), RUN_JOBS_IN_PROCESS: 'false' } });
      fake.allowRedirectUri(`${server.url}${CALLBACK_PATH}`);
      fake.allowRedirectUri(`${server.devUrl}${CALLBACK_PATH}`);
      api = apiClient(server.url, ws.productionKey);
      devApi = apiClient(server.devUrl, ws.developmentKey);
      otherApi = apiClient(server.url, other.productionKey);
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await fake?.close();
  });

  it('keeps a connection to its workspace and environment', async () => {
    const endUserId = randomUUID();
    const { callback } = await connectCalendar(
      api,
      fake,
      endUserId,
      fake.account('ada@example.com'),
    );
    expect(callback.status).toBe(200);
    expect((await api('GET', connectionPath(endUserId))).body.google_email).toBe('ada@example.com');
    expectError(await devApi('GET', connectionPath(endUserId)), 404, 'not_found');
    expectError(await otherApi('GET', connectionPath(endUserId)), 404, 'not_found');
    expectError(await otherApi('DELETE', connectionPath(endUserId)), 404, 'not_found');

    // The same end user in development is a connection of its own, through its own callback.
    const dev = await connectCalendar(devApi, fake, endUserId, fake.account('ada.dev@example.com'));
    expect(dev.callback.status).toBe(200);
    expect(fake.requests.filter((r) => r.path === '/token').at(-1)?.form?.redirect_uri).toBe(
      `${server.devUrl}${CALLBACK_PATH}`,
    );
    expect((await devApi('GET', connectionPath(endUserId))).body.google_email).toBe(
      'ada.dev@example.com',
    );
    expect((await api('GET', connectionPath(endUserId))).body.google_email).toBe('ada@example.com');
  });

  it('replaces a connection on reconnect, revoking only another account’s grant', async () => {
    const endUserId = randomUUID();
    const ada = fake.account('ada@example.com');
    await connectCalendar(api, fake, endUserId, ada);
    const first = (await api('GET', connectionPath(endUserId))).body;
    const firstToken = fake.refreshTokens.at(-1) ?? '';

    // The same Google account again: revoking the old token would end the new grant too.
    await connectCalendar(api, fake, endUserId, ada);
    const second = (await api('GET', connectionPath(endUserId))).body;
    expect(second.google_email).toBe('ada@example.com');
    expect(Date.parse(second.connected_at)).toBeGreaterThanOrEqual(Date.parse(first.connected_at));
    expect(fake.refreshTokenValid(firstToken)).toBe(true);
    const secondToken = fake.refreshTokens.at(-1) ?? '';

    // Another account: the previous grant is given back to Google.
    await connectCalendar(api, fake, endUserId, fake.account('grace@example.com'));
    expect((await api('GET', connectionPath(endUserId))).body.google_email).toBe(
      'grace@example.com',
    );
    expect(fake.refreshTokenValid(secondToken)).toBe(false);
    expect(fake.refreshTokenValid(fake.refreshTokens.at(-1) ?? '')).toBe(true);
    const rows = await handle.db
      .selectFrom('google_calendar_connections')
      .select('google_email')
      .where('end_user_id', '=', endUserId)
      .execute();
    expect(rows).toEqual([{ google_email: 'grace@example.com' }]);
  });

  it('shows a connection whose grant Google ended as reauthorization_required', async () => {
    const endUserId = randomUUID();
    const ada = fake.account('ada@example.com');
    await connectCalendar(api, fake, endUserId, ada);
    // The user removes the app's access at Google; the next calendar call (refused with
    // 401, then a refresh refused with invalid_grant) finds out.
    fake.revokeEverything(ada);
    fake.expireAccessTokens();
    const tools = await calendarTools(handle, database, ws.workspaceId, fake.env(), fake);
    const prepared = await tools.prepare(endUserId);
    expect((await tools.call(prepared, 'list_calendar_events', {})).ok).toBe(false);
    const reply = await api('GET', connectionPath(endUserId));
    expect(reply.body).toMatchObject({
      google_email: 'ada@example.com',
      status: 'reauthorization_required',
    });

    await connectCalendar(api, fake, endUserId, ada);
    expect((await api('GET', connectionPath(endUserId))).body.status).toBe('connected');
    expect((await tools.call(await tools.prepare(endUserId), 'list_calendar_events', {})).ok).toBe(
      true,
    );
  });

  it('deletes a connection and revokes its grant at Google', async () => {
    const endUserId = randomUUID();
    await connectCalendar(api, fake, endUserId, fake.account('ada@example.com'));
    const refreshToken = fake.refreshTokens.at(-1) ?? '';

    const reply = await api('DELETE', connectionPath(endUserId));
    expect(reply.status).toBe(204);
    expect(reply.bytes.byteLength).toBe(0);
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/revoke',
      query: { token: refreshToken },
    });
    expect(fake.refreshTokenValid(refreshToken)).toBe(false);
    expectError(await api('GET', connectionPath(endUserId)), 404, 'not_found');
    expectError(await api('DELETE', connectionPath(endUserId)), 404, 'not_found');
  });

  it('deletes the connection even when Google cannot revoke it', async () => {
    const endUserId = randomUUID();
    await connectCalendar(api, fake, endUserId, fake.account('ada@example.com'));
    const refreshToken = fake.refreshTokens.at(-1) ?? '';
    // google-auth-library tries a revocation up to four times on 5xx answers.
    for (let i = 0; i < 4; i++) fake.failNext('revoke', 503, { error: 'backend_error' });

    expect((await api('DELETE', connectionPath(endUserId))).status).toBe(204);
    expectError(await api('GET', connectionPath(endUserId)), 404, 'not_found');
    expect(fake.refreshTokenValid(refreshToken)).toBe(true);
    // The log line travels through the api's stdout, apart from its HTTP answer.
    const warning = await waitFor(
      () => server.logs().find((l) => l.msg === 'google token revocation failed'),
      { what: 'the revocation warning in the logs' },
    );
    expect(warning).toMatchObject({ google_status: 503 });
  });

  it('refuses bad input at the edge', async () => {
    const create = (body: unknown) => api('POST', '/v1/google-calendar/oauth-requests', body);
    expectError(await create({ end_user_id: 'user-1' }), 400, 'invalid_request');
    expectError(await create({}), 400, 'invalid_request');
    for (const return_url of [
      'ftp://app.example.com/x',
      '/relative',
      'https://u:p@app.example.com/',
    ]) {
      expectError(await create({ end_user_id: randomUUID(), return_url }), 400, 'invalid_request');
    }
    expectError(await create({ end_user_id: randomUUID(), extra: 1 }), 400, 'invalid_request');
    // Connections are made for UUIDs only: another id has none.
    expectError(await api('GET', connectionPath('not-a-uuid')), 404, 'not_found');
    expectError(await api('DELETE', connectionPath('not-a-uuid')), 404, 'not_found');
    expectError(
      await apiClient(server.url, undefined)('GET', connectionPath(randomUUID())),
      401,
      'unauthorized',
    );
  });

  it('writes no token, code, state or client secret to its logs', async () => {
    const codes = fake.requests.flatMap((r) => (r.form?.code ? [r.form.code] : []));
    const verifiers = fake.requests.flatMap((r) =>
      r.form?.code_verifier ? [r.form.code_verifier] : [],
    );
    const states = fake.requests.flatMap((r) => (r.query.state ? [r.query.state] : []));
    const secrets = [
      fake.clientSecret,
      ...fake.refreshTokens,
      ...fake.accessTokens,
      ...codes,
      ...verifiers,
      ...states,
    ];
    expect(codes.length).toBeGreaterThan(3);
    expect(states.length).toBeGreaterThan(3);
    const output = server.output();
    expect(output).toContain('google calendar connected');
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});
