import type { HttpRequest } from './types.ts';

/**
 * The public HTTP origin of the environment a request addressed: the configured base URL
 * when there is one, else the request's `Host` (and `X-Forwarded-Proto`).
 */
export function publicHttpBase(request: HttpRequest, configured: string | undefined): string {
  if (configured) return configured.replace(/\/+$/, '');
  const secure = (request.headers['x-forwarded-proto'] ?? '').split(',')[0]?.trim() === 'https';
  return `${secure ? 'https' : 'http'}://${request.headers.host ?? 'localhost'}`;
}
