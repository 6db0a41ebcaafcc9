import { createHash, createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CALENDAR_ERRORS,
  type FakeCalendarEvent,
  insertEvent,
  listEvents,
  storedEvent,
} from './google-calendar-events.ts';

export { CALENDAR_ERRORS, calendarError } from './google-calendar-events.ts';

/** A Google account the fake knows: who consents, and its primary calendar. */
export interface FakeGoogleAccount {
  subject: string;
  email: string;
  timeZone: string;
  events: FakeCalendarEvent[];
}

/** What the next visit of the consent page does. */
export interface ConsentPlan {
  account: FakeGoogleAccount;
  /** `deny`: the user clicks Cancel (`error=access_denied`). */
  decision: 'allow' | 'deny';
  /** Scopes the user leaves ticked (granular consent); default every requested one. */
  grantScopes?: string[];
}

/** One request the fake received. */
export interface GoogleRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Parsed `application/x-www-form-urlencoded` body (token and revoke endpoints). */
  form: Record<string, string> | undefined;
  /** Parsed JSON body (Calendar API). */
  json: unknown;
  /** The bearer token presented, if any. */
  bearer: string | undefined;
}

interface Grant {
  account: FakeGoogleAccount;
  scopes: string[];
  revoked: boolean;
}

interface Failure {
  endpoint: 'token' | 'revoke' | 'calendar';
  status: number;
  body: unknown;
}

const CALENDAR_PREFIX = '/calendar/v3/calendars/';

/**
 * A fake of Google's OAuth 2.0 web-server flow and of Calendar v3, on 127.0.0.1:
 *
 * - `GET /o/oauth2/v2/auth`: the consent page; checks the client and registered redirect
 *   URI (Google's error pages otherwise), then "consents" as {@link ConsentPlan} says and
 *   redirects (302) to `redirect_uri` with `code`, `scope` and `state`, or `error`.
 * - `POST /token`: `authorization_code` (single use, redirect URI and PKCE S256 checked) and
 *   `refresh_token` grants, client authentication by form fields or Basic; answers
 *   `access_token`, `expires_in`, `refresh_token`, `scope`, `token_type` and an RS256
 *   `id_token`, or `{"error": "invalid_grant" | "invalid_client" | ...}`.
 * - `POST /revoke?token=` (or a form body): revoking any token of a grant ends the grant.
 * - `/calendar/v3/calendars/primary/events` list and insert, with Calendar's error bodies.
 */
export class FakeGoogle {
  readonly clientId = `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`;
  readonly clientSecret = `GOCSPX-${randomBytes(12).toString('base64url')}`;
  readonly requests: GoogleRequest[] = [];
  /** Seconds an access token lives. */
  accessTokenLifetimeS = 3599;
  readonly #server: Server;
  readonly #redirectUris = new Set<string>();
  readonly #consents: ConsentPlan[] = [];
  readonly #codes = new Map<
    string,
    Grant & { redirectUri: string; challenge?: string; used: boolean }
  >();
  readonly #refreshTokens = new Map<string, Grant>();
  readonly #accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  readonly #failures: Failure[] = [];
  readonly #key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  #url = '';

  private constructor() {
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => res.destroy());
    });
  }

  static async start(): Promise<FakeGoogle> {
    const fake = new FakeGoogle();
    fake.#server.listen(0, '127.0.0.1');
    await once(fake.#server, 'listening');
    fake.#url = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The service's configuration for this fake. */
  env(): Record<string, string> {
    return {
      GOOGLE_OAUTH_CLIENT_ID: this.clientId,
      GOOGLE_OAUTH_CLIENT_SECRET: this.clientSecret,
      GOOGLE_OAUTH_AUTHORIZATION_URL: `${this.#url}/o/oauth2/v2/auth`,
      GOOGLE_OAUTH_TOKEN_URL: `${this.#url}/token`,
      GOOGLE_OAUTH_REVOKE_URL: `${this.#url}/revoke`,
      GOOGLE_CALENDAR_API_URL: `${this.#url}/`,
    };
  }

  get url(): string {
    return this.#url;
  }

  /** Registers a redirect URI with the client, as the Cloud console does. */
  allowRedirectUri(uri: string): void {
    this.#redirectUris.add(uri);
  }

  /** A Google account with a primary calendar holding `events`. */
  account(email: string, events: Partial<FakeCalendarEvent>[] = [], timeZone = 'Europe/Paris') {
    const account: FakeGoogleAccount = {
      subject: String(100_000_000_000 + Math.floor(Math.random() * 1e11)),
      email,
      timeZone,
      events: [],
    };
    for (const event of events) {
      account.events.push(storedEvent(email, event as Pick<FakeCalendarEvent, 'start' | 'end'>));
    }
    return account;
  }

  /** What the next consent page visit does (queued; a visit with none planned answers 500). */
  planConsent(plan: ConsentPlan): void {
    this.#consents.push(plan);
  }

  /**
   * A grant as if `account` had consented to `scopes` and the code had been exchanged:
   * its refresh token and a first access token.
   */
  issueGrant(
    account: FakeGoogleAccount,
    scopes = ['https://www.googleapis.com/auth/calendar.events', 'openid', 'email'],
  ): { refreshToken: string; accessToken: string } {
    const grant: Grant = { account, scopes: scopes.map(expandScope), revoked: false };
    const refreshToken = `1//0g${randomBytes(30).toString('base64url')}`;
    this.#refreshTokens.set(refreshToken, grant);
    return { refreshToken, accessToken: this.#accessToken(grant).access_token };
  }

  /** Makes the next request to `endpoint` fail with `status` and `body`. */
  failNext(endpoint: Failure['endpoint'], status: number, body: unknown): void {
    this.#failures.push({ endpoint, status, body });
  }

  /** Every access token expires now (the next call needs a refresh). */
  expireAccessTokens(): void {
    for (const token of this.#accessTokens.values()) token.expiresAt = 0;
  }

  /** The user removes the app's access in their Google account: every token stops working. */
  revokeEverything(account: FakeGoogleAccount): void {
    for (const grant of this.#refreshTokens.values())
      if (grant.account === account) grant.revoked = true;
  }

  /** Whether a refresh token still works. */
  refreshTokenValid(token: string): boolean {
    const grant = this.#refreshTokens.get(token);
    return grant !== undefined && !grant.revoked;
  }

  /** Refresh tokens issued so far, oldest first. */
  get refreshTokens(): string[] {
    return [...this.#refreshTokens.keys()];
  }

  /** Access tokens issued so far, oldest first. */
  get accessTokens(): string[] {
    return [...this.#accessTokens.keys()];
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const type = req.headers['content-type'] ?? '';
    const request: GoogleRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      form: type.startsWith('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(raw))
        : undefined,
      json: type.startsWith('application/json') && raw !== '' ? JSON.parse(raw) : undefined,
      bearer: /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1],
    };
    this.requests.push(request);
    const endpoint =
      url.pathname === '/token' ? 'token' : url.pathname === '/revoke' ? 'revoke' : 'calendar';
    const failure = this.#failures.findIndex((f) => f.endpoint === endpoint);
    if (failure >= 0 && url.pathname !== '/o/oauth2/v2/auth') {
      const [{ status, body }] = this.#failures.splice(failure, 1) as [Failure];
      return json(res, status, body);
    }
    if (request.method === 'GET' && url.pathname === '/o/oauth2/v2/auth')
      return this.#consent(request, res);
    if (request.method === 'POST' && url.pathname === '/token')
      return this.#token(req, request, res);
    if (request.method === 'POST' && url.pathname === '/revoke') return this.#revoke(request, res);
    if (url.pathname.startsWith(CALENDAR_PREFIX)) return this.#calendar(request, res);
    json(res, 404, CALENDAR_ERRORS.notFound);
  }

  #consent(request: GoogleRequest, res: ServerResponse) {
    const q = request.query;
    if (q.client_id !== this.clientId) return page(res, 401, 'Error 401: invalid_client');
    if (!q.redirect_uri || !this.#redirectUris.has(q.redirect_uri))
      return page(res, 400, 'Error 400: redirect_uri_mismatch');
    if (q.response_type !== 'code' || !q.scope) return page(res, 400, 'Error 400: invalid_request');
    if (q.code_challenge && q.code_challenge_method !== 'S256')
      return page(res, 400, 'Error 400: invalid_request');
    const plan = this.#consents.shift();
    if (!plan) return page(res, 500, 'The test planned no consent');
    const back = new URL(q.redirect_uri);
    if (plan.decision === 'deny') {
      back.searchParams.set('error', 'access_denied');
    } else {
      const scopes = (plan.grantScopes ?? q.scope.split(' ')).map(expandScope);
      const code = `4/0A${randomBytes(24).toString('base64url')}`;
      this.#codes.set(code, {
        account: plan.account,
        scopes,
        revoked: false,
        redirectUri: q.redirect_uri,
        ...(q.code_challenge ? { challenge: q.code_challenge } : {}),
        used: false,
      });
      back.searchParams.set('code', code);
      back.searchParams.set('scope', scopes.join(' '));
      back.searchParams.set('authuser', '0');
      back.searchParams.set('prompt', 'consent');
    }
    if (q.state) back.searchParams.set('state', q.state);
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  #token(req: IncomingMessage, request: GoogleRequest, res: ServerResponse) {
    const form = request.form ?? {};
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [];
    const clientId = form.client_id ?? basicId;
    const clientSecret = form.client_secret ?? basicSecret;
    if (clientId !== this.clientId || clientSecret !== this.clientSecret)
      return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
    const invalidGrant = (description: string) =>
      json(res, 400, { error: 'invalid_grant', error_description: description });
    if (form.grant_type === 'authorization_code') {
      const code = this.#codes.get(form.code ?? '');
      if (!code || code.used) return invalidGrant('Bad Request');
      code.used = true;
      if (form.redirect_uri !== code.redirectUri)
        return json(res, 400, { error: 'redirect_uri_mismatch', error_description: 'Bad Request' });
      if (code.challenge) {
        if (!form.code_verifier) return invalidGrant('Missing code verifier.');
        const digest = createHash('sha256').update(form.code_verifier).digest('base64url');
        if (digest !== code.challenge) return invalidGrant('Invalid code verifier.');
      }
      const grant: Grant = { account: code.account, scopes: code.scopes, revoked: false };
      const refreshToken = `1//0g${randomBytes(30).toString('base64url')}`;
      this.#refreshTokens.set(refreshToken, grant);
      return json(res, 200, { ...this.#accessToken(grant), refresh_token: refreshToken });
    }
    if (form.grant_type === 'refresh_token') {
      const grant = this.#refreshTokens.get(form.refresh_token ?? '');
      if (!grant || grant.revoked) return invalidGrant('Token has been expired or revoked.');
      return json(res, 200, this.#accessToken(grant));
    }
    json(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type: ' });
  }

  #accessToken(grant: Grant) {
    const token = `ya29.a0${randomBytes(30).toString('base64url')}`;
    this.#accessTokens.set(token, {
      grant,
      expiresAt: Date.now() + this.accessTokenLifetimeS * 1000,
    });
    return {
      access_token: token,
      expires_in: this.accessTokenLifetimeS,
      scope: grant.scopes.join(' '),
      token_type: 'Bearer',
      ...(grant.scopes.includes('openid') ? { id_token: this.#idToken(grant.account) } : {}),
    };
  }

  #idToken(account: FakeGoogleAccount): string {
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: 'RS256', kid: 'fake-key-1', typ: 'JWT' };
    const claims = {
      iss: 'https://accounts.google.com',
      azp: this.clientId,
      aud: this.clientId,
      sub: account.subject,
      email: account.email,
      email_verified: true,
      at_hash: randomBytes(16).toString('base64url'),
      iat: now,
      exp: now + 3600,
    };
    const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
    const signed = `${encode(header)}.${encode(claims)}`;
    const signature = createSign('RSA-SHA256').update(signed).sign(this.#key.privateKey);
    return `${signed}.${signature.toString('base64url')}`;
  }

  #revoke(request: GoogleRequest, res: ServerResponse) {
    const token = request.query.token ?? request.form?.token ?? '';
    const grant = this.#refreshTokens.get(token) ?? this.#accessTokens.get(token)?.grant;
    if (!grant || grant.revoked)
      return json(res, 400, {
        error: 'invalid_token',
        error_description: 'Token expired or revoked',
      });
    grant.revoked = true;
    json(res, 200, {});
  }

  #calendar(request: GoogleRequest, res: ServerResponse) {
    const access = this.#accessTokens.get(request.bearer ?? '');
    if (!access || access.expiresAt <= Date.now() || access.grant.revoked)
      return json(res, 401, CALENDAR_ERRORS.invalidCredentials);
    const rest = request.path.slice(CALENDAR_PREFIX.length);
    if (rest !== 'primary/events') return json(res, 404, CALENDAR_ERRORS.notFound);
    const owner = access.grant.account;
    const answer =
      request.method === 'GET'
        ? listEvents(owner, request.query)
        : request.method === 'POST'
          ? insertEvent(owner, request.json)
          : { status: 404, body: CALENDAR_ERRORS.notFound };
    json(res, answer.status, answer.body);
  }
}

/** Google accepts `email` for the full userinfo scope and reports it that way. */
function expandScope(scope: string): string {
  return scope === 'email' ? 'https://www.googleapis.com/auth/userinfo.email' : scope;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(text);
}

function page(res: ServerResponse, status: number, title: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><title>${title}</title><h1>${title}</h1>`);
}
