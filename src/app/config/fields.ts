import { z } from 'zod';
import type { Environment } from './environments.ts';

/** Field types shared by the configuration schema's parts. */

export const port = z.coerce.number().int().min(0).max(65535);
export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** `host=environment` pairs, comma separated: `api.example.com=production,dev.example.com=development`. */
export const hostMap = z
  .string()
  .transform((value, ctx) => {
    const map = new Map<string, Environment>();
    for (const pair of value.split(',').map((p) => p.trim())) {
      if (pair === '') continue;
      const [host, environment] = pair.split('=').map((p) => p.trim().toLowerCase());
      if (!host || (environment !== 'production' && environment !== 'development')) {
        ctx.addIssue({
          code: 'custom',
          message: `expected host=production|development pairs, got "${pair}"`,
        });
        return z.NEVER;
      }
      map.set(host, environment);
    }
    return map;
  })
  .default(new Map());

/** A comma-separated list of model names. */
export function modelList(fallback: string) {
  return z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    );
}
