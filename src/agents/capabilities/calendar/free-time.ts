import { z } from 'zod';
import { AgentToolError, defineAgentTool } from '../agent-tool.ts';
import type { CalendarEvent } from './calendar-api.ts';
import {
  type CalendarToolDependencies,
  DAY_MS,
  userZone,
  withCalendar,
} from './calendar-context.ts';
import { isBusy } from './event-view.ts';
import { requestedRange } from './list-events.ts';
import { startOf, TIME_FORMATS } from './time-input.ts';
import { formatInZone, isTimeZone } from './zoned-time.ts';

/** Events read to find free time (Google's page limit is 2,500). */
const EVENTS_READ = 250;
const MAX_SLOTS = 20;
const MAX_SEARCH_DAYS = 31;
/** A search from "now" starts at the next quarter hour. */
const QUARTER_HOUR_MS = 15 * 60_000;

interface Interval {
  start: number;
  end: number;
}

/** When a busy event occupies the user, in milliseconds; all-day events by `zone`'s days. */
function busyInterval(event: CalendarEvent, zone: string): Interval | null {
  // Google's end date is exclusive: an all-day event ends at that date's midnight.
  const edge = (time: CalendarEvent['start']) => {
    if (time?.dateTime) return new Date(time.dateTime).getTime();
    if (time?.date) return startOf({ kind: 'date', date: time.date }, zone).getTime();
    return null;
  };
  const start = edge(event.start);
  const end = edge(event.end);
  return start === null || end === null || end <= start ? null : { start, end };
}

/** The gaps of at least `minimumMs` between merged busy intervals, inside the range. */
export function freeSlots(busy: Interval[], range: Interval, minimumMs: number): Interval[] {
  const sorted = busy
    .map((interval) => ({
      start: Math.max(interval.start, range.start),
      end: Math.min(interval.end, range.end),
    }))
    .filter((interval) => interval.end > interval.start)
    .sort((a, b) => a.start - b.start);
  const free: Interval[] = [];
  let cursor = range.start;
  for (const interval of sorted) {
    if (interval.start - cursor >= minimumMs) free.push({ start: cursor, end: interval.start });
    cursor = Math.max(cursor, interval.end);
  }
  if (range.end - cursor >= minimumMs) free.push({ start: cursor, end: range.end });
  return free;
}

/** `find_free_time`: open stretches of the end user's calendar, from its events. */
export function freeTimeTool(deps: CalendarToolDependencies) {
  return defineAgentTool({
    name: 'find_free_time',
    description:
      "Finds free stretches in the user's Google Calendar (primary calendar) of at least `duration_minutes` between `from` and `to` (default: from now, 7 days), around every event that makes the user busy. Use it before proposing a time to book. Free stretches include nights: suggest sensible hours.",
    parameters: z.object({
      from: z.string().max(40).optional().describe(`Start of the search, ${TIME_FORMATS}.`),
      to: z.string().max(40).optional().describe('End of the search (a date: its whole day).'),
      duration_minutes: z
        .number()
        .int()
        .min(5)
        .max(1440)
        .optional()
        .describe('The shortest stretch worth reporting (default 30).'),
    }),
    run: async (args, context, signal) => {
      const zone = userZone(context);
      const now = deps.now();
      const nextQuarter = new Date(Math.ceil(now.getTime() / QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
      const { from, to } = requestedRange(args, zone, args.from ? now : nextQuarter);
      if (to.getTime() - from.getTime() > MAX_SEARCH_DAYS * DAY_MS)
        throw new AgentToolError(`Search at most ${MAX_SEARCH_DAYS} days at once.`);
      const page = await withCalendar(deps, context, (api, token) =>
        api.listEvents(
          token,
          {
            timeMin: from.toISOString(),
            timeMax: to.toISOString(),
            maxResults: EVENTS_READ,
            ...(zone ? { timeZone: zone } : {}),
          },
          signal,
        ),
      );
      const shown = zone ?? (isTimeZone(page.timeZone) ? page.timeZone : 'UTC');
      const busy = page.events.filter(isBusy).flatMap((event) => busyInterval(event, shown) ?? []);
      const minutes = args.duration_minutes ?? 30;
      const slots = freeSlots(busy, { start: from.getTime(), end: to.getTime() }, minutes * 60_000);
      const view = (interval: Interval) => ({
        start: formatInZone(new Date(interval.start), shown),
        end: formatInZone(new Date(interval.end), shown),
      });
      return {
        time_zone: shown,
        from: formatInZone(from, shown),
        to: formatInZone(to, shown),
        duration_minutes: minutes,
        free: slots.slice(0, MAX_SLOTS).map(view),
        more_free_time_not_shown: slots.length > MAX_SLOTS,
        // Past the events read, the calendar was not checked: the answer is partial.
        complete: !page.more,
      };
    },
  });
}
