import type { CalendarEvent } from './calendar-api.ts';
import { addDays, formatInZone } from './zoned-time.ts';

/** Longest description a listed event shows the model. */
const MAX_DESCRIPTION_CHARS = 300;
/** Most attendees a listed event names. */
const MAX_ATTENDEES = 10;

/** An event as the model reads it. */
export interface EventView {
  id: string;
  title: string;
  /** Date-time with offset in the user's time zone, or a date for all-day events. */
  start: string;
  /** For all-day events the last day, inclusive. */
  end: string;
  all_day: boolean;
  location?: string;
  description?: string;
  attendees?: string[];
  /** Only when not confirmed (`tentative`). */
  status?: string;
  /** The user's own answer to an invitation, when invited. */
  response?: string;
}

/** A time of an event (start or end) as the model reads it; null when Google gave none. */
function timeView(
  time: CalendarEvent['start'],
  zone: string,
  edge: 'start' | 'end',
): { text: string; allDay: boolean } | null {
  if (time?.dateTime) return { text: formatInZone(new Date(time.dateTime), zone), allDay: false };
  if (time?.date)
    return { text: edge === 'end' ? addDays(time.date, -1) : time.date, allDay: true };
  return null;
}

/** The event for the model, times in `zone`; null for events without times or cancelled. */
export function eventView(event: CalendarEvent, zone: string): EventView | null {
  if (event.status === 'cancelled') return null;
  const start = timeView(event.start, zone, 'start');
  const end = timeView(event.end, zone, 'end');
  if (!start || !end) return null;
  const attendees = (event.attendees ?? [])
    .filter((attendee) => !attendee.resource && attendee.email)
    .map((attendee) => attendee.email as string);
  const self = (event.attendees ?? []).find((attendee) => attendee.self);
  const description = event.description?.trim();
  return {
    id: event.id ?? '',
    title: event.summary?.trim() || '(no title)',
    start: start.text,
    end: end.text,
    all_day: start.allDay,
    ...(event.location ? { location: event.location } : {}),
    ...(description
      ? {
          description:
            description.length > MAX_DESCRIPTION_CHARS
              ? `${description.slice(0, MAX_DESCRIPTION_CHARS)}…`
              : description,
        }
      : {}),
    ...(attendees.length > 0 ? { attendees: attendees.slice(0, MAX_ATTENDEES) } : {}),
    ...(event.status && event.status !== 'confirmed' ? { status: event.status } : {}),
    ...(self?.responseStatus ? { response: self.responseStatus } : {}),
  };
}

/**
 * Whether the event makes the user busy: not marked "free" (transparent), not cancelled,
 * and not an invitation the user declined.
 */
export function isBusy(event: CalendarEvent): boolean {
  if (event.status === 'cancelled' || event.transparency === 'transparent') return false;
  const self = (event.attendees ?? []).find((attendee) => attendee.self);
  return self?.responseStatus !== 'declined';
}
