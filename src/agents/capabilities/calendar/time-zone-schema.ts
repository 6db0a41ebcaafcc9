import { z } from 'zod';
import { isTimeZone } from './zoned-time.ts';

/**
 * An IANA time zone. The document lists the runtime's canonical zone names (what a client
 * should send); the service also accepts the aliases `Intl` knows (`US/Eastern`).
 */
export function timeZoneSchema() {
  return z
    .string()
    .max(64)
    .refine(isTimeZone, 'an IANA time zone such as Europe/Paris')
    .meta({ enum: Intl.supportedValuesOf('timeZone') });
}
