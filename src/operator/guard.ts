import type { Role } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { HttpRequest } from '../http/types.ts';
import type { OperatorPrincipal, OperatorSessions } from './sessions.ts';

/** Name of the operator session cookie. */
export const SESSION_COOKIE = 'awp_operator_session';
/** The cookie is sent only to the operator API (and the dashboard under /operator). */
const COOKIE_PATH = '/operator';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOOPBACK_HOSTS = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i;

export interface OperatorGuardOptions {
  /**
   * Send the cookie without `Secure` on every host. Default false: `Secure` everywhere but
   * loopback hosts (browsers treat http://localhost as a secure context anyway).
   */
  insecureCookies?: boolean;
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
    private readonly options: OperatorGuardOptions = {},
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
    const secure =
      !this.options.insecureCookies && !LOOPBACK_HOSTS.test(request.headers.host ?? '');
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
