import type { RouteCors } from './route.ts';

/** Headers a browser may read from cross-origin answers. */
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After';
/** Request headers cross-origin callers may send. */
const ALLOWED_HEADERS = 'Authorization, Content-Type';
/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The CORS headers of an answer to `origin` on a route with policy `cors`. An origin the
 * allowlist refuses gets no `Access-Control-Allow-Origin`, so the browser blocks the read.
 */
export function corsHeaders(
  cors: RouteCors,
  origin: string | undefined,
  allowsOrigin: (origin: string) => boolean,
): Record<string, string> {
  if (cors === 'any') {
    return { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS };
  }
  if (origin === undefined || !allowsOrigin(origin)) return { vary: 'Origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': EXPOSED_HEADERS,
    vary: 'Origin',
  };
}

/**
 * The answer to a preflight (`OPTIONS`) for a path whose routes have `methods`; undefined
 * when the origin may not call it (the server then answers 403).
 */
export function preflightHeaders(
  cors: RouteCors,
  origin: string | undefined,
  methods: readonly string[],
  allowsOrigin: (origin: string) => boolean,
): Record<string, string> | undefined {
  const base = corsHeaders(cors, origin, allowsOrigin);
  if (!base['access-control-allow-origin']) return undefined;
  return {
    ...base,
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}
