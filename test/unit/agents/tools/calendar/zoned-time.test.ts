import { describe, expect, it } from 'vitest';
import { AgentToolError } from '../../../../../src/agents/capabilities/agent-tool.ts';
import { freeSlots } from '../../../../../src/agents/capabilities/calendar/free-time.ts';
import {
  endOf,
  parseTime,
  startOf,
} from '../../../../../src/agents/capabilities/calendar/time-input.ts';
import {
  addDays,
  formatInZone,
  instantInZone,
  isTimeZone,
  offsetMinutes,
} from '../../../../../src/agents/capabilities/calendar/zoned-time.ts';

const at = (iso: string) => new Date(iso);
const wall = (year: number, month: number, day: number, hour: number, minute = 0) => ({
  year,
  month,
  day,
  hour,
  minute,
  second: 0,
});

describe('zoned time', () => {
  it('formats instants on a zone’s wall clock with its offset', () => {
    expect(formatInZone(at('2025-01-05T14:00:00Z'), 'Europe/Paris')).toBe(
      '2025-01-05T15:00:00+01:00',
    );
    expect(formatInZone(at('2025-07-05T14:00:00Z'), 'Europe/Paris')).toBe(
      '2025-07-05T16:00:00+02:00',
    );
    expect(formatInZone(at('2025-01-05T14:00:00Z'), 'Asia/Kolkata')).toBe(
      '2025-01-05T19:30:00+05:30',
    );
    expect(formatInZone(at('2025-01-05T02:00:00Z'), 'America/New_York')).toBe(
      '2025-01-04T21:00:00-05:00',
    );
    expect(formatInZone(at('2025-01-05T14:00:00Z'), 'UTC')).toBe('2025-01-05T14:00:00+00:00');
    expect(offsetMinutes(at('2025-03-30T01:30:00Z'), 'Europe/Paris')).toBe(120);
  });

  it('reads local times, across daylight-saving changes as Temporal’s compatible mode', () => {
    expect(instantInZone(wall(2025, 1, 5, 9), 'America/New_York').toISOString()).toBe(
      '2025-01-05T14:00:00.000Z',
    );
    // 02:30 does not exist in Paris on 30 March 2025: read with the offset before (03:30).
    expect(instantInZone(wall(2025, 3, 30, 2, 30), 'Europe/Paris').toISOString()).toBe(
      '2025-03-30T01:30:00.000Z',
    );
    // 02:30 happens twice on 26 October 2025: the first one.
    expect(instantInZone(wall(2025, 10, 26, 2, 30), 'Europe/Paris').toISOString()).toBe(
      '2025-10-26T00:30:00.000Z',
    );
  });

  it('knows time zones and calendar dates', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone(null)).toBe(false);
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-01-01', -1)).toBe('2024-12-31');
  });
});

describe('times a model gives the calendar tools', () => {
  it('reads dates, local date-times and date-times with offsets', () => {
    expect(parseTime('from', '2025-03-04', 'Europe/Paris')).toEqual({
      kind: 'date',
      date: '2025-03-04',
    });
    expect(parseTime('from', '2025-03-04T15:00', 'Europe/Paris')).toEqual({
      kind: 'instant',
      instant: at('2025-03-04T14:00:00Z'),
    });
    expect(parseTime('from', '2025-03-04 15:00:30', 'Europe/Paris')).toEqual({
      kind: 'instant',
      instant: at('2025-03-04T14:00:30Z'),
    });
    expect(parseTime('from', '2025-03-04T15:00:00-05:00', null)).toEqual({
      kind: 'instant',
      instant: at('2025-03-04T20:00:00Z'),
    });
    expect(parseTime('from', '2025-03-04T15:00:00Z', null)).toEqual({
      kind: 'instant',
      instant: at('2025-03-04T15:00:00Z'),
    });
  });

  it('turns dates into whole days of the zone', () => {
    const day = parseTime('to', '2025-03-04', 'Europe/Paris');
    expect(startOf(day, 'Europe/Paris').toISOString()).toBe('2025-03-03T23:00:00.000Z');
    expect(endOf(day, 'Europe/Paris').toISOString()).toBe('2025-03-04T23:00:00.000Z');
  });

  it('refuses what is no time, and local times without a zone', () => {
    const refusal = (text: string, zone: string | null) => {
      try {
        parseTime('start', text, zone);
      } catch (error) {
        expect(error).toBeInstanceOf(AgentToolError);
        return (error as Error).message;
      }
      throw new Error(`${text} was accepted`);
    };
    expect(refusal('tomorrow at 3', 'Europe/Paris')).toContain('start is not a time');
    expect(refusal('2025-02-29', 'Europe/Paris')).toContain('not a real calendar date');
    expect(refusal('2025-03-04T25:00', 'Europe/Paris')).toContain('no such time of day');
    expect(refusal('2025-03-04T15:00', null)).toContain('with a UTC offset');
    expect(refusal('2025-03-04', null)).toContain('with a UTC offset');
  });
});

describe('free slots', () => {
  it('are the long enough gaps between merged busy intervals, inside the range', () => {
    const range = { start: 0, end: 100 };
    const busy = [
      { start: 20, end: 30 },
      { start: 25, end: 40 },
      { start: 45, end: 50 },
      { start: 90, end: 120 },
      { start: -10, end: 5 },
    ];
    expect(freeSlots(busy, range, 10)).toEqual([
      { start: 5, end: 20 },
      { start: 50, end: 90 },
    ]);
    expect(freeSlots([], range, 10)).toEqual([range]);
    expect(freeSlots([{ start: 0, end: 100 }], range, 1)).toEqual([]);
  });
});
