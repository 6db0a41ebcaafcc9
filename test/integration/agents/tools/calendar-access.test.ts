// How the calendar tools get at an end user's calendar, on both databases, against a fake
// Google: access tokens cached sealed and refreshed when they expire (or when Google
// refuses one early), a refresh answered `invalid_grant` marking the connection for
// reauthorization, Google's refusals told to the model, a deployment without a Google
// client, and no token in the logs.
import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../../../../src/db/connect.ts';
import { CALENDAR_ERRORS, FakeGoogle } from '../../../fakes/google.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../../fixtures/index.ts';
import type { TestDatabase } from '../../../helpers/database.ts';
import { type CalendarTools, calendarTools } from '../../../helpers/google-calendar.ts';
import { seedWorkspace } from '../../../helpers/seed.ts';

const RANGE = { from: '2025-03-05', to: '2025-03-06' };

describeEachDialect('calendar access on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let fake: FakeGoogle;
  let tools: CalendarTools;
  let workspaceId: string;

  const since = (count: number) => fake.requests.slice(count).map((r) => `${r.method} ${r.path}`);
  const status = async (endUserId: string) =>
    (
      await handle.db
        .selectFrom('google_calendar_connections')
        .select('status')
        .where('end_user_id', '=', endUserId)
        .executeTakeFirstOrThrow()
    ).status;

  beforeAll(async ({ databases }) => {
    fake = await FakeGoogle.start();
    ({ database, handle } = await databases.get(dialect));
    workspaceId = (await seedWorkspace(handle)).workspaceId;
    tools = await calendarTools(handle, database, workspaceId, fake.env(), fake);
  });

  afterAll(async () => {
    await fake?.close();
  });

  it('refreshes an expired access token once and reuses the new one', async () => {
    const endUserId = randomUUID();
    const { refreshToken } = await tools.connect(
      endUserId,
      fake.account('ada@example.com'),
      new Date(Date.now() - 1000),
    );
    const prepared = await tools.prepare(endUserId);
    const count = fake.requests.length;
    expect((await tools.call(prepared, 'list_calendar_events', RANGE)).ok).toBe(true);
    expect(since(count)).toEqual(['POST /token', `GET /calendar/v3/calendars/primary/events`]);
    expect(fake.requests[count]?.form).toEqual({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
    });
    const fresh = fake.accessTokens.at(-1);
    expect(fake.requests.at(-1)?.bearer).toBe(fresh);

    // The refreshed token is cached (sealed) for the next calls, by any process.
    expect((await tools.call(prepared, 'list_calendar_events', RANGE)).ok).toBe(true);
    expect(since(count + 2)).toEqual(['GET /calendar/v3/calendars/primary/events']);
    expect(fake.requests.at(-1)?.bearer).toBe(fresh);
    const row = await handle.db
      .selectFrom('google_calendar_connections')
      .select(['access_token_ciphertext', 'access_token_expires_at'])
      .where('end_user_id', '=', endUserId)
      .executeTakeFirstOrThrow();
    expect(row.access_token_ciphertext).not.toContain(fresh);
    expect(Date.parse(row.access_token_expires_at ?? '')).toBeGreaterThan(Date.now() + 3_000_000);
  });

  it('refreshes and tries once more when Google refuses a token early', async () => {
    const endUserId = randomUUID();
    await tools.connect(endUserId, fake.account('ada@example.com'));
    fake.expireAccessTokens();
    const prepared = await tools.prepare(endUserId);
    const count = fake.requests.length;
    const { ok } = await tools.call(prepared, 'create_calendar_event', {
      title: 'Call mum',
      start: '2025-03-05T18:00',
      end: '2025-03-05T18:30',
    });
    expect(ok).toBe(true);
    expect(since(count)).toEqual([
      'POST /calendar/v3/calendars/primary/events',
      'POST /token',
      'POST /calendar/v3/calendars/primary/events',
    ]);
    expect(fake.requests.at(-1)?.bearer).toBe(fake.accessTokens.at(-1));
  });

  it('marks a connection whose grant Google ended, and stops calling Google for it', async () => {
    const endUserId = randomUUID();
    const account = fake.account('ada@example.com');
    await tools.connect(endUserId, account, new Date(Date.now() - 1000));
    fake.revokeEverything(account);
    const prepared = await tools.prepare(endUserId);
    const count = fake.requests.length;
    const { ok, result } = await tools.call(prepared, 'list_calendar_events', RANGE);
    expect(ok).toBe(false);
    expect(result.error).toContain('has expired or was revoked');
    expect(result.error).toContain('connect their Google Calendar again');
    expect(since(count)).toEqual(['POST /token']);
    expect(await status(endUserId)).toBe('reauthorization_required');
    expect(tools.logs).toContainEqual(
      expect.objectContaining({
        msg: 'google calendar connection needs reauthorization',
        google_status: 400,
        google_reason: 'invalid_grant',
      }),
    );

    const again = await tools.prepare(endUserId);
    expect(again.instructions[0]).toContain('has expired or was revoked');
    expect((await tools.call(again, 'find_free_time', RANGE)).ok).toBe(false);
    expect(since(count + 1)).toEqual([]);
  });

  it('tells the model about rate limits, missing calendars and outages', async () => {
    const endUserId = randomUUID();
    await tools.connect(endUserId, fake.account('ada@example.com'));
    const prepared = await tools.prepare(endUserId);
    const cases: [number, unknown, string][] = [
      [403, CALENDAR_ERRORS.rateLimit, 'Google Calendar is busy right now (rate limit)'],
      [429, CALENDAR_ERRORS.rateLimit, 'Google Calendar is busy right now (rate limit)'],
      [404, CALENDAR_ERRORS.notFound, "did not find the user's calendar"],
      [500, CALENDAR_ERRORS.backendError, 'could not be reached'],
    ];
    for (const [code, body, message] of cases) {
      fake.failNext('calendar', code, body);
      const count = fake.requests.length;
      const { ok, result } = await tools.call(prepared, 'list_calendar_events', RANGE);
      expect({ code, ok, error: result.error }).toEqual({
        code,
        ok: false,
        error: expect.stringContaining(message),
      });
      // Not retried: the model hears at once and may try again.
      expect(since(count)).toEqual(['GET /calendar/v3/calendars/primary/events']);
    }
    expect(await status(endUserId)).toBe('connected');
    expect((await tools.call(prepared, 'list_calendar_events', RANGE)).ok).toBe(true);
  });

  it('says the calendar is unavailable on a deployment without a Google client', async () => {
    const bare = await calendarTools(handle, database, workspaceId, {});
    const prepared = await bare.prepare(randomUUID());
    expect(prepared.capabilities).toEqual(['calendar']);
    expect(prepared.instructions[0]).toContain('Google Calendar is unavailable on this service');
    const count = fake.requests.length;
    for (const name of ['list_calendar_events', 'find_free_time', 'create_calendar_event']) {
      const { ok, result } = await bare.call(prepared, name, {
        title: 'x',
        start: '2025-03-05T10:00',
        end: '2025-03-05T11:00',
      });
      expect({ name, ok, error: result.error }).toEqual({
        name,
        ok: false,
        error: expect.stringContaining('Google Calendar is unavailable on this service'),
      });
    }
    expect(fake.requests).toHaveLength(count);
  });

  it('writes no token or client secret to its logs', () => {
    const text = JSON.stringify(tools.logs);
    expect(tools.logs.length).toBeGreaterThan(0);
    for (const secret of [fake.clientSecret, ...fake.refreshTokens, ...fake.accessTokens]) {
      expect(text).not.toContain(secret);
    }
  });
});
