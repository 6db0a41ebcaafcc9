// The server SDK's googleCalendar resource against the real api and a fake Google: a
// consent flow started, completed by the end user's browser, read and deleted, and the
// typed errors of a missing connection and bad input.
import { randomUUID } from 'node:crypto';
import {
  AwpClient,
  type AwpError,
  InvalidRequestError,
  NotFoundError,
} from '../../../backend-sdk/src/index.ts';
import { FakeGoogle } from '../../fakes/google.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { CALLBACK_PATH, followConsent, GRANTED_SCOPES } from '../../helpers/google-calendar.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

async function rejection(promise: Promise<unknown>): Promise<AwpError> {
  try {
    await promise;
  } catch (error) {
    return error as AwpError;
  }
  throw new Error('expected the call to fail');
}

describeEachDialect('server SDK Google Calendar on %s', (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let fake: FakeGoogle;
  let client: AwpClient;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await FakeGoogle.start();
      database = await databases.empty(dialect);
      const handle = await openTestDatabase(database);
      const ws = await seedWorkspace(handle);
      await handle.close();
      server = await apis.start(database, { env: fake.env() });
      fake.allowRedirectUri(`${server.url}${CALLBACK_PATH}`);
      client = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url, maxAttempts: 1 });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await fake?.close();
  });

  it('starts a flow, reads the connection it made and deletes it', async () => {
    const endUserId = randomUUID();
    const flow = await client.googleCalendar.createOAuthRequest({
      end_user_id: endUserId,
      return_url: 'https://app.example.com/calendar',
    });
    expect(flow).toEqual({
      authorization_url: expect.stringContaining(`${fake.url}/o/oauth2/v2/auth?`),
      state: expect.any(String),
      expires_at: expect.any(String),
    });
    fake.planConsent({ account: fake.account('ada@example.com'), decision: 'allow' });
    const callback = await followConsent(flow.authorization_url);
    expect(callback.headers.get('location')).toBe(
      `https://app.example.com/calendar?google_calendar=connected&google_calendar_state=${flow.state}`,
    );

    expect(await client.googleCalendar.getConnection(endUserId)).toEqual({
      end_user_id: endUserId,
      google_email: 'ada@example.com',
      scopes: GRANTED_SCOPES,
      status: 'connected',
      connected_at: expect.any(String),
    });
    await client.googleCalendar.deleteConnection(endUserId);
    expect(fake.refreshTokenValid(fake.refreshTokens.at(-1) ?? '')).toBe(false);
    const gone = await rejection(client.googleCalendar.getConnection(endUserId));
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone.code).toBe('not_found');
    expect(await rejection(client.googleCalendar.deleteConnection(endUserId))).toBeInstanceOf(
      NotFoundError,
    );
  });

  it('rejects bad input with InvalidRequestError, an unknown end user with NotFoundError', async () => {
    const bad = await rejection(
      client.googleCalendar.createOAuthRequest({
        end_user_id: randomUUID(),
        return_url: 'javascript:alert(1)',
      }),
    );
    expect(bad).toBeInstanceOf(InvalidRequestError);
    expect(await rejection(client.googleCalendar.getConnection('user-1'))).toBeInstanceOf(
      NotFoundError,
    );
  });
});
