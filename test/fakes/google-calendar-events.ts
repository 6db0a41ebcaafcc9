import { randomBytes } from 'node:crypto';

/** An event as Calendar v3 stores and answers it (the fields the fake keeps). */
export interface FakeCalendarEvent {
  kind: 'calendar#event';
  id: string;
  etag: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  htmlLink: string;
  created: string;
  updated: string;
  summary?: string;
  description?: string;
  location?: string;
  transparency?: 'opaque' | 'transparent';
  creator: { email: string; self?: boolean };
  organizer: { email: string; self?: boolean };
  start: { dateTime?: string; date?: string; timeZone?: string };
  end: { dateTime?: string; date?: string; timeZone?: string };
  attendees?: { email: string; responseStatus: string; self?: boolean; resource?: boolean }[];
  iCalUID: string;
  sequence: number;
  reminders: { useDefault: boolean };
  eventType: 'default';
}

/** A Calendar v3 error body, as Google's "Handle API errors" guide shows them. */
export function calendarError(
  code: number,
  reason: string,
  message: string,
  domain = 'global',
  location?: { locationType: string; location: string },
) {
  return { error: { errors: [{ domain, reason, message, ...location }], code, message } };
}

/** Google's usual bodies for the failures tests inject into the Calendar API. */
export const CALENDAR_ERRORS = {
  invalidCredentials: calendarError(401, 'authError', 'Invalid Credentials', 'global', {
    locationType: 'header',
    location: 'Authorization',
  }),
  rateLimit: calendarError(403, 'rateLimitExceeded', 'Rate Limit Exceeded', 'usageLimits'),
  notFound: calendarError(404, 'notFound', 'Not Found'),
  backendError: calendarError(500, 'backendError', 'Backend Error'),
} as const;

/** The instant an event time names: a date-time, or a date's UTC midnight. */
function instantOf(time: { dateTime?: string; date?: string }): number {
  return new Date(time.dateTime ?? `${time.date}T00:00:00Z`).getTime();
}

/** An event as the fake stores it, from what a test seeds or a client inserts. */
export function storedEvent(
  owner: string,
  input: Partial<FakeCalendarEvent> & Pick<FakeCalendarEvent, 'start' | 'end'>,
): FakeCalendarEvent {
  const id = input.id ?? randomBytes(13).toString('hex');
  const now = new Date().toISOString();
  return {
    kind: 'calendar#event',
    etag: `"${Date.now()}"`,
    status: 'confirmed',
    htmlLink: `https://www.google.com/calendar/event?eid=${id}`,
    created: now,
    updated: now,
    creator: { email: owner, self: true },
    organizer: { email: owner, self: true },
    iCalUID: `${id}@google.com`,
    sequence: 0,
    reminders: { useDefault: true },
    eventType: 'default',
    ...input,
    id,
  };
}

type Answer = { status: number; body: unknown };

/**
 * `GET /calendar/v3/calendars/primary/events`: the owner's events overlapping
 * [timeMin, timeMax), `q` matched in title, description and location, sorted by start with
 * `orderBy=startTime` (which Google allows only with `singleEvents=true`), `maxResults` per
 * page with a `nextPageToken` when more matched.
 */
export function listEvents(
  owner: { email: string; timeZone: string; events: FakeCalendarEvent[] },
  query: Record<string, string>,
): Answer {
  const timeMin = query.timeMin ? Date.parse(query.timeMin) : Number.NEGATIVE_INFINITY;
  const timeMax = query.timeMax ? Date.parse(query.timeMax) : Number.POSITIVE_INFINITY;
  if (Number.isNaN(timeMin) || Number.isNaN(timeMax))
    return { status: 400, body: calendarError(400, 'badRequest', 'Bad Request') };
  if (timeMax <= timeMin) {
    return {
      status: 400,
      body: calendarError(400, 'timeRangeEmpty', 'The specified time range is empty.', 'calendar', {
        locationType: 'parameter',
        location: 'timeMax',
      }),
    };
  }
  if (query.orderBy === 'startTime' && query.singleEvents !== 'true')
    return { status: 400, body: calendarError(400, 'badRequest', 'Bad Request') };
  const q = query.q?.toLowerCase();
  const matching = owner.events
    .filter((event) => instantOf(event.end) > timeMin && instantOf(event.start) < timeMax)
    .filter(
      (event) =>
        !q ||
        [event.summary, event.description, event.location].some((text) =>
          text?.toLowerCase().includes(q),
        ),
    )
    .sort((a, b) => instantOf(a.start) - instantOf(b.start));
  const max = Math.min(Number(query.maxResults ?? 250), 2500);
  return {
    status: 200,
    body: {
      kind: 'calendar#events',
      etag: `"${Date.now()}"`,
      summary: owner.email,
      updated: new Date().toISOString(),
      timeZone: owner.timeZone,
      accessRole: 'owner',
      defaultReminders: [{ method: 'popup', minutes: 10 }],
      items: matching.slice(0, max),
      ...(matching.length > max ? { nextPageToken: randomBytes(12).toString('base64url') } : {}),
    },
  };
}

/** `POST /calendar/v3/calendars/primary/events`: stores the event and answers it. */
export function insertEvent(
  owner: { email: string; events: FakeCalendarEvent[] },
  body: unknown,
): Answer {
  const input = (body ?? {}) as Partial<FakeCalendarEvent>;
  for (const edge of ['start', 'end'] as const) {
    const time = input[edge];
    if (!time || (!time.dateTime && !time.date)) {
      const message = `Missing ${edge} time.`;
      return { status: 400, body: calendarError(400, 'required', message) };
    }
    if (time.dateTime && !/(Z|[+-]\d\d:\d\d)$/.test(time.dateTime) && !time.timeZone) {
      const message = 'Missing time zone definition for start time.';
      return { status: 400, body: calendarError(400, 'timeZoneMissing', message) };
    }
  }
  if (
    instantOf(input.end as FakeCalendarEvent['end']) <
    instantOf(input.start as FakeCalendarEvent['start'])
  )
    return {
      status: 400,
      body: calendarError(400, 'timeRangeEmpty', 'The specified time range is empty.', 'calendar'),
    };
  const event = storedEvent(owner.email, {
    ...(input as Pick<FakeCalendarEvent, 'start' | 'end'>),
    attendees: input.attendees?.map((attendee) => ({
      email: attendee.email,
      responseStatus: 'needsAction',
    })),
  });
  if (!event.attendees) delete event.attendees;
  owner.events.push(event);
  return { status: 200, body: event };
}
