import { AgentToolError } from '../agent-tool.ts';
import { addDays, instantInZone } from './zoned-time.ts';

/** A time a model gave a calendar tool. */
export type TimeInput =
  /** A calendar date (`2025-03-04`): a whole day. */
  | { kind: 'date'; date: string }
  /** A moment: with an offset, or local time read in the user's time zone. */
  | { kind: 'instant'; instant: Date };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** What the tools accept, for their parameter descriptions. */
export const TIME_FORMATS =
  'ISO 8601: a date (2025-03-04), a local date-time in the user’s time zone (2025-03-04T15:00), or a date-time with a UTC offset (2025-03-04T15:00:00+01:00)';

/**
 * Reads a time given as {@link TIME_FORMATS}. Local date-times need the user's `zone`; when
 * it is unknown the model is told to send an offset.
 */
export function parseTime(field: string, text: string, zone: string | null): TimeInput {
  const value = text.trim();
  const date = DATE.exec(value);
  if (date) {
    checkDate(field, Number(date[1]), Number(date[2]), Number(date[3]));
    if (!zone) throw unknownZone(field);
    return { kind: 'date', date: value };
  }
  const match = DATE_TIME.exec(value);
  if (!match) throw new AgentToolError(`${field} is not a time in ${TIME_FORMATS}.`);
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = Number(match[6] ?? 0);
  checkDate(field, year, month, day);
  if (hour > 23 || minute > 59 || second > 59)
    throw new AgentToolError(`${field} has no such time of day.`);
  const offset = match[7];
  if (offset) {
    const instant = new Date(value.replace(' ', 'T'));
    if (Number.isNaN(instant.getTime()))
      throw new AgentToolError(`${field} is not a time in ${TIME_FORMATS}.`);
    return { kind: 'instant', instant };
  }
  if (!zone) throw unknownZone(field);
  return {
    kind: 'instant',
    instant: instantInZone({ year, month, day, hour, minute, second }, zone),
  };
}

/** The first moment of a time: a date's midnight in `zone`. */
export function startOf(input: TimeInput, zone: string | null): Date {
  if (input.kind === 'instant') return input.instant;
  return midnight(input.date, zone ?? 'UTC');
}

/** The moment a time ends, as a range's end: after the whole day for a date. */
export function endOf(input: TimeInput, zone: string | null): Date {
  if (input.kind === 'instant') return input.instant;
  return midnight(addDays(input.date, 1), zone ?? 'UTC');
}

function midnight(date: string, zone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return instantInZone({ year, month, day, hour: 0, minute: 0, second: 0 }, zone);
}

function checkDate(field: string, year: number, month: number, day: number): void {
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day || year < 1970)
    throw new AgentToolError(`${field} is not a real calendar date.`);
}

function unknownZone(field: string): AgentToolError {
  return new AgentToolError(
    `The user's time zone is unknown: give ${field} as a date-time with a UTC offset (2025-03-04T15:00:00+01:00).`,
  );
}
