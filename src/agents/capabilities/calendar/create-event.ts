import { z } from 'zod';
import { AgentToolError, defineAgentTool } from '../agent-tool.ts';
import type { CalendarEvent } from './calendar-api.ts';
import {
  type CalendarToolDependencies,
  DAY_MS,
  userZone,
  withCalendar,
} from './calendar-context.ts';
import { eventView } from './event-view.ts';
import { parseTime, TIME_FORMATS, type TimeInput } from './time-input.ts';
import { addDays, formatInZone, isTimeZone } from './zoned-time.ts';

/** The longest event the tool books. */
const MAX_EVENT_DAYS = 31;
const MAX_ATTENDEES = 20;

/** Google's `start` and `end` of an event from the model's times. */
function eventTimes(
  start: TimeInput,
  end: TimeInput,
  zone: string | null,
): Pick<CalendarEvent, 'start' | 'end'> {
  if (start.kind === 'date' && end.kind === 'date') {
    if (end.date < start.date) throw new AgentToolError('end must not be before start.');
    if (addDays(start.date, MAX_EVENT_DAYS) < end.date)
      throw new AgentToolError(`An event may last at most ${MAX_EVENT_DAYS} days.`);
    // Google's end date is exclusive; the model's is the last day.
    return { start: { date: start.date }, end: { date: addDays(end.date, 1) } };
  }
  if (start.kind !== 'instant' || end.kind !== 'instant')
    throw new AgentToolError(
      'start and end must both be dates (an all-day event) or both date-times.',
    );
  if (end.instant.getTime() <= start.instant.getTime())
    throw new AgentToolError('end must be after start.');
  if (end.instant.getTime() - start.instant.getTime() > MAX_EVENT_DAYS * DAY_MS)
    throw new AgentToolError(`An event may last at most ${MAX_EVENT_DAYS} days.`);
  const time = (instant: Date) =>
    zone
      ? { dateTime: formatInZone(instant, zone), timeZone: zone }
      : { dateTime: instant.toISOString() };
  return { start: time(start.instant), end: time(end.instant) };
}

/** `create_calendar_event`: books an event in the end user's primary calendar. */
export function createEventTool(deps: CalendarToolDependencies) {
  return defineAgentTool({
    name: 'create_calendar_event',
    description:
      "Creates an event in the user's Google Calendar (primary calendar). Confirm title, day and time with the user before calling. Attendees get Google's invitation email.",
    parameters: z.object({
      title: z.string().trim().min(1).max(200).describe('What the event is called.'),
      start: z.string().max(40).describe(`When it starts, ${TIME_FORMATS}.`),
      end: z
        .string()
        .max(40)
        .describe('When it ends, in the same form as start; for an all-day event its last day.'),
      description: z.string().max(4000).optional().describe('Notes shown in the event.'),
      location: z.string().max(500).optional().describe('Where it takes place.'),
      attendees: z
        .array(z.email())
        .max(MAX_ATTENDEES)
        .optional()
        .describe('Email addresses to invite.'),
    }),
    run: async (args, context, signal) => {
      const zone = userZone(context);
      const times = eventTimes(
        parseTime('start', args.start, zone),
        parseTime('end', args.end, zone),
        zone,
      );
      const attendees = [...new Set(args.attendees ?? [])].map((email) => ({ email }));
      const event: CalendarEvent = {
        summary: args.title,
        ...(args.description?.trim() ? { description: args.description.trim() } : {}),
        ...(args.location?.trim() ? { location: args.location.trim() } : {}),
        ...times,
        ...(attendees.length > 0 ? { attendees } : {}),
      };
      const created = await withCalendar(deps, context, (api, token) =>
        api.insertEvent(token, event, signal),
      );
      const calendarZone = created.start?.timeZone ?? undefined;
      const shown = zone ?? (isTimeZone(calendarZone) ? calendarZone : 'UTC');
      return {
        created: eventView(created, shown),
        ...(created.htmlLink ? { link: created.htmlLink } : {}),
      };
    },
  });
}
