import { ConversationError } from '../errors.ts';
import type { SessionTokenResult } from '../options.ts';
import type { ConversationSession, SessionStartResponse } from '../session.ts';
import { jwtExpiryMs } from './jwt.ts';
import type { ResolvedOptions, SessionSource } from './validate-options.ts';

/** How many tokens a client remembers to recognise a cached one. */
const USED_TOKENS_KEPT = 32;

/**
 * Obtains a session for each `connect()`: through a fresh Agent session token and the api's
 * session start, or through the app's own backend.
 */
export class SessionStarter {
  readonly #usedTokens: string[] = [];

  constructor(private readonly options: ResolvedOptions) {}

  async start(signal: AbortSignal): Promise<ConversationSession> {
    const { source, agentId } = this.options;
    let answer: unknown;
    if (source.kind === 'backend') {
      answer = await callback(() => source.startSession({ agentId }), 'startSession');
    } else {
      const result = await callback(source.sessionToken, 'sessionToken');
      const token = this.#checkToken(result);
      answer = await this.#post(source.apiOrigin, token, startBody(source), signal);
      this.#remember(token);
    }
    const session = parseSession(answer);
    if (session.agentId.toLowerCase() !== agentId) {
      throw new ConversationError(
        'protocol_error',
        `The session started for Agent ${session.agentId}, not ${agentId}.`,
      );
    }
    return session;
  }

  #checkToken(result: SessionTokenResult): string {
    const token = typeof result === 'string' ? result : result?.token;
    if (typeof token !== 'string' || token.length === 0) {
      throw new ConversationError(
        'session_callback_failed',
        'sessionToken must return a token string or the api token object {token, expires_at}.',
      );
    }
    const expiresAtMs =
      typeof result === 'object' && result.expires_at
        ? Date.parse(result.expires_at)
        : jwtExpiryMs(token);
    if (expiresAtMs !== undefined && expiresAtMs <= Date.now()) throw expired();
    if (this.#usedTokens.includes(token)) throw expired();
    return token;
  }

  #remember(token: string): void {
    this.#usedTokens.push(token);
    if (this.#usedTokens.length > USED_TOKENS_KEPT) this.#usedTokens.shift();
  }

  async #post(
    apiOrigin: string,
    token: string,
    request: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> {
    const url = `${apiOrigin}/v1/agents/${this.options.agentId}/sessions`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
        signal,
        credentials: 'omit',
      });
    } catch (error) {
      if (signal.aborted) throw aborted();
      throw new ConversationError('network_error', `Could not reach ${url}.`, {
        retryable: true,
        cause: error,
      });
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) throw apiError(response.status, body, token);
    return body;
  }
}

/** The session start's body: the context and overrides the client was given, if any. */
function startBody(source: Extract<SessionSource, { kind: 'token' }>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (source.sessionContext) body.sessionContext = source.sessionContext;
  if (source.overrides) body.overrides = source.overrides;
  return body;
}

async function callback<T>(fn: () => T | Promise<T>, name: string): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ConversationError) throw error;
    throw new ConversationError('session_callback_failed', `${name} threw: ${String(error)}`, {
      cause: error,
    });
  }
}

function expired(): ConversationError {
  return new ConversationError(
    'token_expired',
    'The session token is expired or was already used: the sessionToken callback must mint a fresh token on every call, never return a cached one.',
  );
}

export function aborted(): ConversationError {
  return new ConversationError('aborted', 'disconnect() was called before connect() finished.');
}

function apiError(status: number, body: unknown, token: string): ConversationError {
  const object = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const code = typeof object.code === 'string' ? object.code : `http_${status}`;
  const detail =
    typeof object.detail === 'string' ? object.detail : `The api answered HTTP ${status}.`;
  // A token that expired between the check and the api's (clock skew) is still a cached one.
  const expiry = jwtExpiryMs(token);
  if (code === 'unauthorized' && expiry !== undefined && expiry <= Date.now()) return expired();
  return new ConversationError(code, detail, {
    status,
    retryable: typeof object.retryable === 'boolean' ? object.retryable : status >= 500,
    ...(typeof object.request_id === 'string' ? { requestId: object.request_id } : {}),
  });
}

function isString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** Checks and camelCases the api's session answer. */
export function parseSession(value: unknown): ConversationSession {
  // The backend's control credential must never reach a browser: say so plainly when a
  // backend forwards the whole application-session answer.
  if (typeof value === 'object' && value !== null && 'control' in value) {
    throw new ConversationError(
      'protocol_error',
      'startSession returned the whole application-session answer: return only its `session` part and keep `control` on your backend.',
    );
  }
  const answer = value as Partial<SessionStartResponse> | undefined;
  const avatar = answer?.avatar;
  if (
    !answer ||
    !isString(answer.session_id) ||
    !isString(answer.agent_id) ||
    !isString(answer.room) ||
    !isString(answer.livekit?.url) ||
    !isString(answer.livekit?.token)
  ) {
    throw new ConversationError(
      'protocol_error',
      'The session answer lacks session_id, agent_id, room or livekit {url, token}.',
    );
  }
  return {
    sessionId: answer.session_id,
    agentId: answer.agent_id,
    room: answer.room,
    livekit: { url: answer.livekit.url, token: answer.livekit.token },
    avatar:
      avatar && isString(avatar.id)
        ? { id: avatar.id, name: avatar.name ?? '', imageUrl: avatar.image_url ?? '' }
        : null,
    expiresAt: typeof answer.expires_at === 'string' ? answer.expires_at : '',
  };
}
