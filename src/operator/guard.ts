import type { Environment } from '../app/config.ts';
import type { Role } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { HttpRequest } from '../http/types.ts';
import type { OperatorPrincipal, OperatorSessions } from './operator-sessions.ts';

/** Name of the operator session cookie. */
export const SESSION_COOKIE = 'awp_operator_session';
/** The cookie is sent only to the operator API (and the dashboard under /operator). */
const COOKIE_PATH = '/operator';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOOPBACK_LISTEN_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export interface OperatorGuardOptions {
  /**
   * Whether the session cookie carries `Secure` on each environment's listener, decided
   * from configuration ({@link secureCookieEnvironments}); never from a request's `Host`,
   * which a proxy forwards as the client sent it.
   */
  secureCookies: Record<Environment, boolean>;
}

/**
 * `Secure` per environment: off with `OPERATOR_INSECURE_COOKIES`; else on unless the
 * environment's public base URL is plain `http://`, or, with no public base URL, the api
 * listens on loopback only (a local install opened as http://localhost, where some
 * browsers drop a `Secure` cookie).
 */
export function secureCookieEnvironments(config: {
  OPERATOR_INSECURE_COOKIES: boolean;
  HOST: string;
  PUBLIC_BASE_URL?: string | undefined;
  PUBLIC_DEV_BASE_URL?: string | undefined;
}): Record<Environment, boolean> {
  const secure = (publicBaseUrl: string | undefined) => {
    if (config.OPERATOR_INSECURE_COOKIES) return false;
    if (publicBaseUrl) return new URL(publicBaseUrl).protocol === 'https:';
    return !LOOPBACK_LISTEN_HOSTS.has(config.HOST.toLowerCase());
  };
  return {
    production: secure(config.PUBLIC_BASE_URL),
    development: secure(config.PUBLIC_DEV_BASE_URL),
  };
}

/** The value of cookie `name` in a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Who may call an operator route. Authentication is the session cookie; CSRF protection
 * is an Origin check on every state-changing request (the `Origin` header must name the
 * host the request was sent to; without one, `Sec-Fetch-Site: same-origin` is accepted),
 * on top of `SameSite=Strict`.
 *
 * @example
 * const member = await guard.requireMember(request, VOICE_MANAGER_ROLES);
 */
export class OperatorGuard {
  constructor(
    private readonly sessions: OperatorSessions,
    private readonly options: OperatorGuardOptions,
  ) {}

  /**
   * The signed-in member when their role is one of `allowedRoles`: 401 `unauthorized`
   * without a valid session, 403 `forbidden` for a cross-site write or another role.
   */
  async requireMember(
    request: HttpRequest,
    allowedRoles: readonly Role[],
  ): Promise<OperatorPrincipal> {
    this.checkOrigin(request);
    const sessionId = readCookie(request.headers.cookie, SESSION_COOKIE);
    const principal = sessionId ? await this.sessions.resolve(sessionId) : null;
    if (!principal) throw new ApiError('unauthorized', 'Sign in to the operator API first.');
    if (!allowedRoles.includes(principal.role)) {
      throw new ApiError(
        'forbidden',
        `This requires the role ${allowedRoles.join(', ')} in the workspace; you are ${principal.role}.`,
      );
    }
    return principal;
  }

  /** Refuses a state-changing request that a page on another site may have sent. */
  checkOrigin(request: HttpRequest): void {
    if (!UNSAFE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin === undefined || origin === '') {
      if (request.headers['sec-fetch-site'] === 'same-origin') return;
      throw new ApiError('forbidden', 'A state-changing operator request needs an Origin header.');
    }
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      throw new ApiError('forbidden', 'Cross-site request refused.');
    }
    if (host === '' || host.toLowerCase() !== (request.headers.host ?? '').toLowerCase()) {
      throw new ApiError('forbidden', 'Cross-site request refused.');
    }
  }

  /** The `Set-Cookie` value opening a session. */
  sessionCookie(request: HttpRequest, sessionId: string, expiresAt: string): string {
    return this.#cookie(request, sessionId, `Expires=${new Date(expiresAt).toUTCString()}`);
  }

  /** The `Set-Cookie` value removing the session cookie. */
  clearedCookie(request: HttpRequest): string {
    return this.#cookie(request, '', 'Max-Age=0');
  }

  /** The session id the request carries, if any. */
  sessionId(request: HttpRequest): string | undefined {
    return readCookie(request.headers.cookie, SESSION_COOKIE);
  }

  #cookie(request: HttpRequest, value: string, lifetime: string): string {
    const secure = this.options.secureCookies[request.environment];
    return [
      `${SESSION_COOKIE}=${value}`,
      `Path=${COOKIE_PATH}`,
      lifetime,
      'HttpOnly',
      'SameSite=Strict',
      ...(secure ? ['Secure'] : []),
    ].join('; ');
  }
}
