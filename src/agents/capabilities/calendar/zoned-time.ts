/**
 * Wall-clock times in IANA time zones with `Intl` alone: the offset of a zone at an
 * instant, an instant formatted as ISO 8601 with that offset, and the instant of a local
 * date and time in a zone.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** Whether `zone` names a time zone this runtime knows (`Europe/Paris`, `UTC`). */
export function isTimeZone(zone: string | null | undefined): zone is string {
  if (!zone) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(instant: Date, zone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** Minutes `zone` is ahead of UTC at `instant` (Paris in winter: 60). */
export function offsetMinutes(instant: Date, zone: string): number {
  const wall = wallClock(instant, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const whole = Math.floor(instant.getTime() / 1000) * 1000;
  return Math.round((asUtc - whole) / 60_000);
}

const pad = (value: number, length = 2) => String(value).padStart(length, '0');

/** `2025-03-04T15:30:00+01:00`: `instant` on the wall clock of `zone`. */
export function formatInZone(instant: Date, zone: string): string {
  const wall = wallClock(instant, zone);
  const offset = offsetMinutes(instant, zone);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** `2025-03-04`: the date of `instant` on the wall clock of `zone`. */
export function dateInZone(instant: Date, zone: string): string {
  return formatInZone(instant, zone).slice(0, 10);
}

/**
 * The instant a local date and time in `zone` names. A time repeated by a daylight-saving
 * change resolves to its first occurrence; a time the change skips is read with the offset
 * before it (02:30 on a night clocks go from 02:00 to 03:00 gives 03:30), as `Temporal`'s
 * `compatible` disambiguation does.
 */
export function instantInZone(local: WallClock, zone: string): Date {
  const asUtc = Date.UTC(
    local.year,
    local.month - 1,
    local.day,
    local.hour,
    local.minute,
    local.second,
  );
  const before = offsetMinutes(new Date(asUtc - 86_400_000), zone);
  const after = offsetMinutes(new Date(asUtc + 86_400_000), zone);
  const candidates = [...new Set([before, after])]
    .map((offset) => asUtc - offset * 60_000)
    .filter((instant) => {
      const wall = wallClock(new Date(instant), zone);
      return (
        Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) === asUtc
      );
    });
  return new Date(candidates.length > 0 ? Math.min(...candidates) : asUtc - before * 60_000);
}

/** The calendar date `days` after `date` (`YYYY-MM-DD`). */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}
