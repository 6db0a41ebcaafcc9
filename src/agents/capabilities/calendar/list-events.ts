import { z } from 'zod';
import { AgentToolError, defineAgentTool } from '../agent-tool.ts';
import {
  type CalendarToolDependencies,
  DAY_MS,
  DEFAULT_RANGE_DAYS,
  MAX_RANGE_DAYS,
  userZone,
  withCalendar,
} from './calendar-context.ts';
import { eventView } from './event-view.ts';
import { endOf, parseTime, startOf, TIME_FORMATS } from './time-input.ts';
import { formatInZone, isTimeZone } from './zoned-time.ts';

/** Events listed when the model does not say. */
const DEFAULT_MAX_EVENTS = 20;
const MAX_EVENTS = 50;

/** A range the model gave (or the default: from now, seven days). */
export function requestedRange(
  args: { from?: string | undefined; to?: string | undefined },
  zone: string | null,
  now: Date,
): { from: Date; to: Date } {
  const from = args.from ? startOf(parseTime('from', args.from, zone), zone) : now;
  const to = args.to
    ? endOf(parseTime('to', args.to, zone), zone)
    : new Date(from.getTime() + DEFAULT_RANGE_DAYS * DAY_MS);
  if (to.getTime() <= from.getTime()) throw new AgentToolError('to must be after from.');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
    throw new AgentToolError(`The range may span at most ${MAX_RANGE_DAYS} days.`);
  return { from, to };
}

/** `list_calendar_events`: the end user's events in a range, by start time. */
export function listEventsTool(deps: CalendarToolDependencies) {
  return defineAgentTool({
    name: 'list_calendar_events',
    description:
      "Lists events of the user's Google Calendar (primary calendar) between `from` and `to`, in start order, recurring events as single occurrences. Without a range: the next 7 days. Times come back with UTC offsets in the user's time zone; all-day events have dates, `end` being their last day.",
    parameters: z.object({
      from: z
        .string()
        .max(40)
        .optional()
        .describe(`Start of the range, ${TIME_FORMATS}. Default: now.`),
      to: z
        .string()
        .max(40)
        .optional()
        .describe('End of the range (a date means its whole day). Default: 7 days after `from`.'),
      query: z
        .string()
        .max(200)
        .optional()
        .describe('Only events whose text (title, description, location, attendees) matches.'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(MAX_EVENTS)
        .optional()
        .describe(`How many events at most (default ${DEFAULT_MAX_EVENTS}).`),
    }),
    run: async (args, context, signal) => {
      const zone = userZone(context);
      const { from, to } = requestedRange(args, zone, deps.now());
      const page = await withCalendar(deps, context, (api, token) =>
        api.listEvents(
          token,
          {
            timeMin: from.toISOString(),
            timeMax: to.toISOString(),
            maxResults: args.max_results ?? DEFAULT_MAX_EVENTS,
            ...(args.query?.trim() ? { q: args.query.trim() } : {}),
            ...(zone ? { timeZone: zone } : {}),
          },
          signal,
        ),
      );
      const shown = zone ?? (isTimeZone(page.timeZone) ? page.timeZone : 'UTC');
      return {
        time_zone: shown,
        from: formatInZone(from, shown),
        to: formatInZone(to, shown),
        events: page.events.flatMap((event) => eventView(event, shown) ?? []),
        more_events_not_shown: page.more,
      };
    },
  });
}
