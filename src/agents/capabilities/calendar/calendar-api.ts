import { calendar, type calendar_v3 } from '@googleapis/calendar';
import { googleFailure } from './google-errors.ts';
import type { GoogleSettings } from './settings.ts';

export type CalendarEvent = calendar_v3.Schema$Event;

/** One page of `events.list` of a calendar. */
export interface EventPage {
  /** The calendar's own time zone (IANA), when Google names it. */
  timeZone: string | undefined;
  events: CalendarEvent[];
  /** More events matched than the page holds. */
  more: boolean;
}

/**
 * The Calendar v3 calls the calendar tools make, through Google's own client
 * (`@googleapis/calendar`) rooted at the configured API URL. Each call carries the end
 * user's access token as a bearer header, the caller's abort signal and the configured
 * timeout, and is not retried: the model hears about a failure at once and may try again.
 * Every failure is a `GoogleFailure`.
 */
export class GoogleCalendarApi {
  readonly #api: calendar_v3.Calendar;
  readonly #timeoutMs: number;

  constructor(settings: Pick<GoogleSettings, 'calendarApiUrl' | 'timeoutMs'>) {
    this.#api = calendar({ version: 'v3', rootUrl: settings.calendarApiUrl });
    this.#timeoutMs = settings.timeoutMs;
  }

  /** Single events (recurring ones expanded) of the user's primary calendar, by start time. */
  async listEvents(
    accessToken: string,
    query: { timeMin: string; timeMax: string; q?: string; maxResults: number; timeZone?: string },
    signal: AbortSignal,
  ): Promise<EventPage> {
    try {
      const { data } = await this.#api.events.list(
        {
          calendarId: 'primary',
          timeMin: query.timeMin,
          timeMax: query.timeMax,
          singleEvents: true,
          orderBy: 'startTime',
          maxResults: query.maxResults,
          ...(query.q ? { q: query.q } : {}),
          ...(query.timeZone ? { timeZone: query.timeZone } : {}),
        },
        this.#options(accessToken, signal),
      );
      return {
        timeZone: data.timeZone ?? undefined,
        events: data.items ?? [],
        more: Boolean(data.nextPageToken),
      };
    } catch (error) {
      throw googleFailure(error);
    }
  }

  /** Creates an event in the user's primary calendar; attendees are emailed when invited. */
  async insertEvent(
    accessToken: string,
    event: CalendarEvent,
    signal: AbortSignal,
  ): Promise<CalendarEvent> {
    try {
      const { data } = await this.#api.events.insert(
        {
          calendarId: 'primary',
          sendUpdates: (event.attendees ?? []).length > 0 ? 'all' : 'none',
          requestBody: event,
        },
        this.#options(accessToken, signal),
      );
      return data;
    } catch (error) {
      throw googleFailure(error);
    }
  }

  #options(accessToken: string, signal: AbortSignal) {
    return {
      headers: { authorization: `Bearer ${accessToken}` },
      signal,
      timeout: this.#timeoutMs,
      retry: false,
    };
  }
}
