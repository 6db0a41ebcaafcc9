// A deployment without a Google OAuth client: starting a consent flow is 503
// `provider_auth_missing` naming the missing variables, reading and deleting connections
// still work (an end user can always disconnect), and the callback answers its page.
import { randomUUID } from 'node:crypto';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, apiClient } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { CALLBACK_PATH } from '../../helpers/google-calendar.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

describeEachDialect('Google Calendar without a Google client on %s', (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let api: ApiClient;

  beforeAll(
    async ({ databases, apis }) => {
      database = await databases.empty(dialect);
      const handle = await openTestDatabase(database);
      const ws = await seedWorkspace(handle);
      await handle.close();
      // A client id alone is not a client: the secret is missing.
      server = await apis.start(database, {
        env: { GOOGLE_OAUTH_CLIENT_ID: 'only-an-id.apps.googleusercontent.com' },
      });
      api = apiClient(server.url, ws.productionKey);
    },
    budget({ servers: 1 }),
  );

  it('answers provider_auth_missing to a new consent flow', async () => {
    const reply = await api('POST', '/v1/google-calendar/oauth-requests', {
      end_user_id: randomUUID(),
    });
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({
      event: 'error',
      request_id: reply.headers.get('x-request-id'),
      code: 'provider_auth_missing',
      retryable: false,
      detail:
        'Google Calendar is not configured on this deployment (GOOGLE_OAUTH_CLIENT_SECRET unset).',
    });
  });

  it('still reads and deletes connections, and answers the callback', async () => {
    for (const method of ['GET', 'DELETE']) {
      const reply = await api(method, `/v1/google-calendar/connections/${randomUUID()}`);
      expect({ method, status: reply.status, code: reply.body.code }).toEqual({
        method,
        status: 404,
        code: 'not_found',
      });
    }
    const callback = await fetch(`${server.url}${CALLBACK_PATH}?state=abc&code=def`);
    expect(callback.status).toBe(404);
    expect(await callback.text()).toContain('content="state_invalid"');
  });
});
