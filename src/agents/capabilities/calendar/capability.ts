import type { Kysely } from 'kysely';
import type { Config } from '../../../app/config.ts';
import type { Database } from '../../../db/schema.ts';
import type { Logger } from '../../../observability/logger.ts';
import type { SecretBox } from '../../../secrets/secret-box.ts';
import type { AgentCapability, AgentTool, AgentToolContext } from '../agent-tool.ts';
import { CalendarAccess } from './access.ts';
import { GoogleCalendarApi } from './calendar-api.ts';
import type { CalendarToolDependencies } from './calendar-context.ts';
import { userZone } from './calendar-context.ts';
import { CalendarConnections } from './connections.ts';
import { createEventTool } from './create-event.ts';
import { freeTimeTool } from './free-time.ts';
import { listEventsTool } from './list-events.ts';
import { GoogleOAuth } from './oauth-client.ts';
import { googleSettingsFromConfig } from './settings.ts';
import { ACCESS_MESSAGES, asToolResult } from './tool-errors.ts';
import { formatInZone } from './zoned-time.ts';

/** A tool whose calendar failures become results the model reads (tool-errors.ts). */
function modelFacing(tool: AgentTool): AgentTool {
  return {
    definition: tool.definition,
    run: (args, context, signal) => asToolResult(signal, () => tool.run(args, context, signal)),
  };
}

/** What the system prompt says about the end user's calendar when a conversation begins. */
async function calendarInstructions(
  deps: CalendarToolDependencies,
  context: AgentToolContext,
): Promise<string> {
  const heading = 'Google Calendar:';
  if (!deps.google) return `${heading} ${ACCESS_MESSAGES.not_configured}`;
  const connection = context.endUserId
    ? await deps.google.access.connection(
        { workspaceId: context.workspaceId, environment: context.environment },
        context.endUserId,
      )
    : null;
  if (!connection) {
    return `${heading} the user has not connected a Google Calendar. If they ask about their schedule or want to book something, ask them to connect their Google Calendar in the app first.`;
  }
  if (connection.status === 'reauthorization_required') {
    return `${heading} ${ACCESS_MESSAGES.reauthorization_required} Do this only when they ask about their schedule.`;
  }
  const zone = userZone(context);
  const now = formatInZone(deps.now(), zone ?? 'UTC');
  const clock = zone
    ? `It is now ${now} in the user's time zone, ${zone}; give times to the calendar tools in it.`
    : `It is now ${now} (UTC); the user's time zone is unknown, so give times to the calendar tools with a UTC offset, and ask the user's time zone when it matters.`;
  return `${heading} the user's calendar (${connection.googleEmail}) is connected. Use list_calendar_events to read their schedule, find_free_time to find open time, and create_calendar_event to book an event once the user has confirmed its title and time. ${clock}`;
}

/**
 * The `calendar` capability: an Agent whose publication has calendar on can read the end
 * user's Google Calendar and book events in it, once the end user connected it
 * (`/v1/google-calendar`). Its tools are offered whether or not the calendar is connected,
 * and tell the model to ask the user to connect it when it is not.
 */
export function calendarCapability(deps: CalendarToolDependencies): AgentCapability {
  const tools = [listEventsTool(deps), freeTimeTool(deps), createEventTool(deps)].map(modelFacing);
  return {
    name: 'calendar',
    needsEndUser: 'calendar_identity_required',
    enabled: (agent) => agent.publication.calendarEnabled,
    instructions: (context) => calendarInstructions(deps, context),
    tools: () => tools,
  };
}

/** The capability of a deployment, from its configuration. */
export function calendarCapabilityFromConfig(deps: {
  config: Config;
  db: Kysely<Database>;
  secretBox: SecretBox;
  logger: Logger;
  now?: () => Date;
}): AgentCapability {
  const settings = googleSettingsFromConfig(deps.config);
  const connections = new CalendarConnections(deps.db, deps.secretBox);
  return calendarCapability({
    google: settings
      ? {
          access: new CalendarAccess(connections, new GoogleOAuth(settings), deps.logger),
          api: new GoogleCalendarApi(settings),
        }
      : null,
    now: deps.now ?? (() => new Date()),
  });
}
