import type { TenantScope } from '../../../db/tenant-scope.ts';
import type { AgentToolContext } from '../agent-tool.ts';
import type { CalendarAccess } from './access.ts';
import { CalendarAccessError } from './access.ts';
import type { GoogleCalendarApi } from './calendar-api.ts';
import { isTimeZone } from './zoned-time.ts';

/** What the calendar tools are built from; `google` is null without a Google client. */
export interface CalendarToolDependencies {
  google: { access: CalendarAccess; api: GoogleCalendarApi } | null;
  now: () => Date;
}

/** The most a listing or free-time search spans. */
export const MAX_RANGE_DAYS = 366;
/** The default span of a listing or free-time search. */
export const DEFAULT_RANGE_DAYS = 7;
export const DAY_MS = 86_400_000;

/** The end user's time zone when the conversation knows a valid one. */
export function userZone(context: AgentToolContext): string | null {
  return isTimeZone(context.timeZone) ? context.timeZone : null;
}

/**
 * Runs `call` with the end user's access token and the Calendar API; throws
 * `CalendarAccessError` when the deployment or the end user has no calendar.
 */
export function withCalendar<T>(
  deps: CalendarToolDependencies,
  context: AgentToolContext,
  call: (api: GoogleCalendarApi, accessToken: string) => Promise<T>,
): Promise<T> {
  const google = deps.google;
  if (!google) throw new CalendarAccessError('not_configured');
  if (!context.endUserId) throw new CalendarAccessError('not_connected');
  const scope: TenantScope = {
    workspaceId: context.workspaceId,
    environment: context.environment,
  };
  return google.access.run(scope, context.endUserId, (token) => call(google.api, token));
}
