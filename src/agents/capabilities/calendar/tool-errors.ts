import { AgentToolError } from '../agent-tool.ts';
import { CalendarAccessError } from './access.ts';
import { GoogleFailure } from './google-errors.ts';

/** What the model is told when the end user's calendar cannot be used. */
export const ACCESS_MESSAGES = {
  not_configured:
    'Google Calendar is unavailable on this service. Tell the user you cannot reach calendars here.',
  not_connected:
    'The user has not connected a Google Calendar. Ask them to connect their Google Calendar in the app, then try again.',
  reauthorization_required:
    "The user's Google Calendar connection has expired or was revoked. Ask them to connect their Google Calendar again in the app.",
} as const;

/**
 * Runs a calendar call and turns what the model can act on (no connection, Google's
 * refusals and outages) into an `AgentToolError` whose message becomes the tool's result.
 * A call aborted by the conversation stays an abort.
 */
export async function asToolResult<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof CalendarAccessError)
      throw new AgentToolError(ACCESS_MESSAGES[error.problem]);
    if (error instanceof GoogleFailure) throw new AgentToolError(googleMessage(error));
    throw error;
  }
}

function googleMessage(failure: GoogleFailure): string {
  switch (failure.kind) {
    case 'rate_limited':
      return 'Google Calendar is busy right now (rate limit). Try again in a moment.';
    case 'unauthenticated':
    case 'invalid_grant':
      return ACCESS_MESSAGES.reauthorization_required;
    case 'not_found':
      return "Google Calendar did not find the user's calendar.";
    case 'rejected':
      return `Google Calendar refused the request${failure.googleMessage ? `: ${failure.googleMessage}` : '.'}`;
    case 'unavailable':
      return 'Google Calendar could not be reached. Try again later.';
  }
}
