// The calendar capability's tools as a published Agent's model calls them (through the
// deployment's toolbox), on both databases, against a fake Google Calendar: the exact
// Calendar v3 requests they make, what the model reads back in the user's time zone, and
// the mistakes a model makes (bad times, no time zone).
import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../../../../src/db/connect.ts';
import { FakeGoogle, type FakeGoogleAccount } from '../../../fakes/google.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../../fixtures/index.ts';
import type { TestDatabase } from '../../../helpers/database.ts';
import { type CalendarTools, calendarTools } from '../../../helpers/google-calendar.ts';
import { seedWorkspace } from '../../../helpers/seed.ts';

const EVENTS = '/calendar/v3/calendars/primary/events';
const TOOL_NAMES = ['list_calendar_events', 'find_free_time', 'create_calendar_event'];

describeEachDialect('calendar tools on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let fake: FakeGoogle;
  let tools: CalendarTools;
  let ada: FakeGoogleAccount;
  let adaUser: string;
  let accessToken: string;

  const calendarRequests = () => fake.requests.filter((r) => r.path.startsWith('/calendar/'));

  beforeAll(async ({ databases }) => {
    fake = await FakeGoogle.start();
    ({ database, handle } = await databases.get(dialect));
    const ws = await seedWorkspace(handle);
    tools = await calendarTools(handle, database, ws.workspaceId, fake.env(), fake);
    ada = fake.account('ada@example.com', [
      {
        summary: 'Dentist',
        location: 'Rue de Rivoli 1',
        start: { dateTime: '2025-03-05T09:00:00Z' },
        end: { dateTime: '2025-03-05T10:00:00Z' },
      },
      {
        summary: 'Lunch with Grace',
        start: { dateTime: '2025-03-05T12:00:00Z' },
        end: { dateTime: '2025-03-05T13:30:00Z' },
        attendees: [
          { email: 'ada@example.com', responseStatus: 'accepted', self: true },
          { email: 'grace@example.com', responseStatus: 'accepted' },
        ],
      },
      {
        summary: 'Focus time (free)',
        transparency: 'transparent',
        start: { dateTime: '2025-03-05T14:00:00Z' },
        end: { dateTime: '2025-03-05T15:00:00Z' },
      },
      {
        summary: 'Declined review',
        start: { dateTime: '2025-03-05T15:00:00Z' },
        end: { dateTime: '2025-03-05T16:00:00Z' },
        attendees: [{ email: 'ada@example.com', responseStatus: 'declined', self: true }],
      },
      { summary: 'Conference', start: { date: '2025-03-06' }, end: { date: '2025-03-08' } },
      {
        summary: 'Next month',
        start: { dateTime: '2025-04-01T09:00:00Z' },
        end: { dateTime: '2025-04-01T10:00:00Z' },
      },
    ]);
    adaUser = randomUUID();
    ({ accessToken } = await tools.connect(adaUser, ada));
  });

  afterAll(async () => {
    await fake?.close();
  });

  it('offers its tools and says whose calendar is connected', async () => {
    const prepared = await tools.prepare(adaUser);
    expect(prepared.capabilities).toEqual(['calendar']);
    expect(prepared.definitions.map((d) => d.name)).toEqual(TOOL_NAMES);
    expect(prepared.instructions).toHaveLength(1);
    expect(prepared.instructions[0]).toContain(
      "the user's calendar (ada@example.com) is connected",
    );
    expect(prepared.instructions[0]).toMatch(
      /It is now \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d in the user's time zone, Europe\/Paris/,
    );

    const stranger = await tools.prepare(randomUUID());
    expect(stranger.definitions.map((d) => d.name)).toEqual(TOOL_NAMES);
    expect(stranger.instructions[0]).toContain('has not connected a Google Calendar');
    const before = calendarRequests().length;
    const { ok, result } = await tools.call(stranger, 'list_calendar_events', {});
    expect(ok).toBe(false);
    expect(result.error).toContain('Ask them to connect their Google Calendar in the app');
    expect(calendarRequests()).toHaveLength(before);
  });

  it('lists events of a range in the user’s time zone, with the exact request', async () => {
    const prepared = await tools.prepare(adaUser);
    const { ok, result } = await tools.call(prepared, 'list_calendar_events', {
      from: '2025-03-05',
      to: '2025-03-06',
    });
    expect(ok).toBe(true);
    expect(calendarRequests().at(-1)).toEqual({
      method: 'GET',
      path: EVENTS,
      query: {
        timeMin: '2025-03-04T23:00:00.000Z',
        timeMax: '2025-03-06T23:00:00.000Z',
        singleEvents: 'true',
        orderBy: 'startTime',
        maxResults: '20',
        timeZone: 'Europe/Paris',
      },
      form: undefined,
      json: undefined,
      bearer: accessToken,
    });
    expect(result).toEqual({
      time_zone: 'Europe/Paris',
      from: '2025-03-05T00:00:00+01:00',
      to: '2025-03-07T00:00:00+01:00',
      events: [
        {
          id: expect.any(String),
          title: 'Dentist',
          start: '2025-03-05T10:00:00+01:00',
          end: '2025-03-05T11:00:00+01:00',
          all_day: false,
          location: 'Rue de Rivoli 1',
        },
        {
          id: expect.any(String),
          title: 'Lunch with Grace',
          start: '2025-03-05T13:00:00+01:00',
          end: '2025-03-05T14:30:00+01:00',
          all_day: false,
          attendees: ['ada@example.com', 'grace@example.com'],
          response: 'accepted',
        },
        expect.objectContaining({ title: 'Focus time (free)' }),
        expect.objectContaining({ title: 'Declined review', response: 'declined' }),
        {
          id: expect.any(String),
          title: 'Conference',
          start: '2025-03-06',
          end: '2025-03-07',
          all_day: true,
        },
      ],
      more_events_not_shown: false,
    });
  });

  it('searches, bounds the count and defaults to the next seven days', async () => {
    const prepared = await tools.prepare(adaUser);
    const found = await tools.call(prepared, 'list_calendar_events', {
      from: '2025-03-01T00:00:00Z',
      to: '2025-04-30T00:00:00Z',
      query: 'grace',
      max_results: 5,
    });
    expect(found.result.events.map((e: { title: string }) => e.title)).toEqual([
      'Lunch with Grace',
    ]);
    expect(calendarRequests().at(-1)?.query).toMatchObject({ q: 'grace', maxResults: '5' });

    const few = await tools.call(prepared, 'list_calendar_events', {
      from: '2025-03-01',
      to: '2025-04-30',
      max_results: 2,
    });
    expect(few.result.events).toHaveLength(2);
    expect(few.result.more_events_not_shown).toBe(true);

    await tools.call(prepared, 'list_calendar_events', {});
    const { timeMin, timeMax } = calendarRequests().at(-1)?.query ?? {};
    expect(Math.abs(Date.parse(timeMin ?? '') - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(timeMax ?? '') - Date.parse(timeMin ?? '')).toBe(7 * 86_400_000);
  });

  it('creates events, timed with attendees and all-day, as Google expects them', async () => {
    const prepared = await tools.prepare(adaUser);
    const timed = await tools.call(prepared, 'create_calendar_event', {
      title: 'Haircut',
      start: '2025-03-12T15:00',
      end: '2025-03-12T15:45',
      description: 'Ask for Marie.',
      attendees: ['bob@example.com'],
    });
    expect(timed.ok).toBe(true);
    expect(calendarRequests().at(-1)).toEqual({
      method: 'POST',
      path: EVENTS,
      query: { sendUpdates: 'all' },
      form: undefined,
      json: {
        summary: 'Haircut',
        description: 'Ask for Marie.',
        start: { dateTime: '2025-03-12T15:00:00+01:00', timeZone: 'Europe/Paris' },
        end: { dateTime: '2025-03-12T15:45:00+01:00', timeZone: 'Europe/Paris' },
        attendees: [{ email: 'bob@example.com' }],
      },
      bearer: accessToken,
    });
    expect(timed.result).toEqual({
      created: {
        id: expect.any(String),
        title: 'Haircut',
        start: '2025-03-12T15:00:00+01:00',
        end: '2025-03-12T15:45:00+01:00',
        all_day: false,
        description: 'Ask for Marie.',
        attendees: ['bob@example.com'],
      },
      link: expect.stringMatching(/^https:\/\/www\.google\.com\/calendar\/event\?eid=/),
    });

    const allDay = await tools.call(prepared, 'create_calendar_event', {
      title: 'Holiday',
      start: '2025-03-20',
      end: '2025-03-21',
    });
    expect(allDay.result.created).toMatchObject({ start: '2025-03-20', end: '2025-03-21' });
    expect(calendarRequests().at(-1)).toMatchObject({
      query: { sendUpdates: 'none' },
      json: { summary: 'Holiday', start: { date: '2025-03-20' }, end: { date: '2025-03-22' } },
    });
    const titles = ada.events.map((event) => event.summary);
    expect(titles).toEqual(expect.arrayContaining(['Haircut', 'Holiday']));
  });

  it('finds free time around the events that make the user busy', async () => {
    const prepared = await tools.prepare(adaUser);
    const { ok, result } = await tools.call(prepared, 'find_free_time', {
      from: '2025-03-05T09:00',
      to: '2025-03-05T18:00',
      duration_minutes: 60,
    });
    expect(ok).toBe(true);
    expect(calendarRequests().at(-1)?.query).toMatchObject({
      timeMin: '2025-03-05T08:00:00.000Z',
      timeMax: '2025-03-05T17:00:00.000Z',
      maxResults: '250',
    });
    // Busy: 10:00-11:00 and 13:00-14:30; the transparent and the declined events are not.
    expect(result).toEqual({
      time_zone: 'Europe/Paris',
      from: '2025-03-05T09:00:00+01:00',
      to: '2025-03-05T18:00:00+01:00',
      duration_minutes: 60,
      free: [
        { start: '2025-03-05T09:00:00+01:00', end: '2025-03-05T10:00:00+01:00' },
        { start: '2025-03-05T11:00:00+01:00', end: '2025-03-05T13:00:00+01:00' },
        { start: '2025-03-05T14:30:00+01:00', end: '2025-03-05T18:00:00+01:00' },
      ],
      more_free_time_not_shown: false,
      complete: true,
    });
  });

  it('tells the model what is wrong with its times, without calling Google', async () => {
    const prepared = await tools.prepare(adaUser);
    const before = calendarRequests().length;
    const mistakes: [string, Record<string, unknown>, string][] = [
      ['list_calendar_events', { from: 'next tuesday' }, 'from is not a time'],
      ['list_calendar_events', { from: '2025-03-05', to: '2025-03-01' }, 'to must be after from'],
      ['list_calendar_events', { from: '2025-02-30' }, 'not a real calendar date'],
      [
        'create_calendar_event',
        { title: 'x', start: '2025-03-05T10:00', end: '2025-03-05T09:00' },
        'end must be after start',
      ],
      [
        'create_calendar_event',
        { title: 'x', start: '2025-03-05', end: '2025-03-05T09:00' },
        'both be dates',
      ],
      ['create_calendar_event', { title: 'x', start: '2025-03-05T10:00' }, 'end'],
      ['find_free_time', { from: '2025-03-01', to: '2025-05-01' }, 'at most 31 days'],
    ];
    for (const [name, args, message] of mistakes) {
      const { ok, result } = await tools.call(prepared, name, args);
      expect({ name, ok }).toEqual({ name, ok: false });
      expect(result.error).toContain(message);
    }
    expect(calendarRequests()).toHaveLength(before);
  });

  it('wants offsets when the user’s time zone is unknown, and answers in the calendar’s', async () => {
    const prepared = await tools.prepare(adaUser, null);
    expect(prepared.instructions[0]).toContain(
      'give times to the calendar tools with a UTC offset',
    );
    const local = await tools.call(prepared, 'list_calendar_events', { from: '2025-03-05T09:00' });
    expect(local.result.error).toContain('give from as a date-time with a UTC offset');

    const { result } = await tools.call(prepared, 'list_calendar_events', {
      from: '2025-03-05T00:00:00-05:00',
      to: '2025-03-05T12:00:00-05:00',
    });
    expect(calendarRequests().at(-1)?.query).toEqual(
      expect.not.objectContaining({ timeZone: expect.anything() }),
    );
    expect(result.time_zone).toBe('Europe/Paris');
    expect(result.from).toBe('2025-03-05T06:00:00+01:00');
    expect(result.events.map((e: { start: string }) => e.start)).toEqual([
      '2025-03-05T10:00:00+01:00',
      '2025-03-05T13:00:00+01:00',
      '2025-03-05T15:00:00+01:00',
      '2025-03-05T16:00:00+01:00',
    ]);
  });
});
