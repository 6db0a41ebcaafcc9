/**
 * The example backend's HTTP surface (node:http, no framework): the page, a demo sign-in,
 * and the session endpoint the page's `startSession` calls. Errors are `{code, detail}`.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApplicationError } from '../../backend-sdk/src/index.ts';
import type { DemoAuth, User } from './auth.ts';
import { Conversation, type ConversationDeps } from './conversation.ts';
import type { PageAssets } from './page.ts';

const MAX_BODY_BYTES = 16 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * Routes requests; keeps each signed-in user's current conversation.
 *
 * @example
 * ```ts
 * const app = new ExampleApp(auth, page, deps);
 * createServer((request, response) => void app.handle(request, response));
 * ```
 */
export class ExampleApp {
  readonly #conversations = new Map<string, Conversation>();

  constructor(
    private readonly auth: DemoAuth,
    private readonly page: PageAssets,
    private readonly deps: ConversationDeps & { agentId: string },
  ) {}

  /** Answers one request; never throws. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      await this.#route(request, response);
    } catch (error) {
      if (error instanceof HttpError) {
        send(response, error.status, { code: error.code, detail: error.message });
        return;
      }
      this.deps.logger.error({ err: error, path: request.url }, 'request failed');
      send(response, 500, { code: 'internal_error', detail: 'the example backend failed' });
    }
  }

  /** Closes every conversation (server shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.#conversations.values()].map((c) => c.close()));
    this.#conversations.clear();
  }

  async #route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://example.invalid').pathname;
    const route = `${request.method} ${path}`;
    switch (route) {
      case 'GET /':
        return sendBytes(response, this.page.html, 'text/html; charset=utf-8');
      case 'GET /app.js':
        return sendBytes(response, this.page.script, 'text/javascript; charset=utf-8');
      case 'GET /healthz':
        return send(response, 200, { ok: true });
      case 'POST /api/sign-in':
        return this.#signIn(request, response);
      case 'POST /api/sign-out':
        return this.#signOut(request, response);
      case 'GET /api/me':
        return send(response, 200, this.#me(this.#user(request)));
      case 'POST /api/session':
        return this.#startSession(request, response);
      case 'GET /api/conversation': {
        const conversation = this.#conversations.get(this.#user(request).id);
        if (!conversation) throw new HttpError(404, 'not_found', 'no conversation started yet');
        return send(response, 200, conversation.view());
      }
      default:
        throw new HttpError(404, 'not_found', `no route ${route}`);
    }
  }

  /** The signed-in user, or 401. */
  #user(request: IncomingMessage): User {
    const user = this.auth.userOf(request);
    if (!user) throw new HttpError(401, 'unauthorized', 'sign in first');
    return user;
  }

  #me(user: User) {
    return { user, agentId: this.deps.agentId };
  }

  async #signIn(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJson(request);
    const { username, password } = body as Record<string, unknown>;
    if (typeof username !== 'string' || typeof password !== 'string') {
      throw new HttpError(400, 'invalid_request', 'username and password are required strings');
    }
    const user = this.auth.signIn(username, password);
    if (!user) throw new HttpError(401, 'invalid_credentials', 'wrong username or password');
    response.setHeader('set-cookie', this.auth.cookieFor(user));
    send(response, 200, this.#me(user));
  }

  async #signOut(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const user = this.auth.userOf(request);
    if (user) {
      const conversation = this.#conversations.get(user.id);
      this.#conversations.delete(user.id);
      await conversation?.close();
    }
    response.setHeader('set-cookie', this.auth.clearCookie());
    response.writeHead(204).end();
  }

  /**
   * Starts an application session for the signed-in user and answers its `session` part
   * (the browser's) only; `control` stays in this process.
   */
  async #startSession(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const user = this.#user(request);
    await readJson(request);
    let conversation: Conversation;
    try {
      conversation = await Conversation.start(user, this.deps);
    } catch (error) {
      throw startFailure(error);
    }
    // One conversation per user: a new start replaces the previous one.
    const previous = this.#conversations.get(user.id);
    this.#conversations.set(user.id, conversation);
    await previous?.close();
    send(response, 201, conversation.session);
  }
}

function startFailure(error: unknown): HttpError {
  if (!(error instanceof ApplicationError)) {
    return new HttpError(502, 'session_start_failed', 'the voice session could not start');
  }
  // The api's own code and message (never a credential) help whoever runs the example.
  const status = error.code === 'unsupported_worker' || error.retryable ? 503 : 502;
  return new HttpError(status, 'session_start_failed', `${error.code}: ${error.message}`);
}

/** Reads a JSON object body of at most {@link MAX_BODY_BYTES}; requires a JSON content type. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  // A JSON content type cannot be sent cross-origin without a CORS preflight this server
  // never grants: together with the SameSite cookie, other sites cannot post here.
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpError(415, 'unsupported_media_type', 'send a JSON body (application/json)');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpError(413, 'payload_too_large', `the body is over ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    const value: unknown = text === '' ? {} : JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // answered below
  }
  throw new HttpError(400, 'invalid_request', 'the body must be a JSON object');
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    // Session credentials and personal data: never cached.
    'cache-control': 'no-store',
  });
  response.end(text);
}

function sendBytes(response: ServerResponse, bytes: Buffer, type: string): void {
  response.writeHead(200, {
    'content-type': type,
    'content-length': bytes.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  response.end(bytes);
}
