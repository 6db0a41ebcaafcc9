/**
 * Starting an application session: `POST /v1/agents/{agentId}/application-sessions` with a
 * workspace key. The answer's `control` part stays on the backend (it joins the data-only
 * connection); its `session` part is the only one the browser gets.
 */

import { ApplicationError } from './errors.ts';

/** How the backend reaches the api. */
export interface ApplicationHttpOptions {
  /** Base URL of the environment (`https://api.example.com`); `/v1/...` is appended. */
  baseUrl: string;
  /** A permanent workspace key (`awp_...`): server-side only, never logged. */
  apiKey: string;
  /** Time limit of the call in milliseconds. Default 30,000. */
  timeoutMs?: number;
  /** Aborts the call; it then rejects with code `aborted`. */
  signal?: AbortSignal;
  /** A `fetch` implementation. Default: the global one. */
  fetch?: typeof fetch;
  /** Headers added to the request. */
  headers?: Record<string, string>;
}

/** A tool the backend implements, as declared at start (defaults applied by the api). */
export interface ApplicationToolSpec {
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique in the session. */
  name: string;
  description: string;
  /** JSON Schema object of the arguments. */
  parameters: Record<string, unknown>;
  /** The user interrupting the Agent cancels a running call. Default false. */
  cancellable?: boolean;
  /** What a second call of a tool still running does (names compared). Default `allow`. */
  onDuplicate?: 'allow' | 'reject' | 'replace' | 'confirm';
  /** False for dispatch tools whose spoken result comes later through `requestReply`. Default true. */
  runReply?: boolean;
}

/** What the backend owns: instructions, prior messages (at most 200), tools (at most 64). */
export interface ApplicationDefinition {
  instructions: string;
  history?: { role: 'user' | 'assistant' | 'system'; content: string }[];
  tools?: ApplicationToolSpec[];
}

/** The start request. The same `chatSessionId` and `requestId` start the same session. */
export interface StartApplicationSessionInput {
  agentId: string;
  /** The backend's id of the conversation (UUID). */
  chatSessionId: string;
  /** Idempotency key of the start (UUID): reuse it to rejoin after a restart. */
  requestId: string;
  application: ApplicationDefinition;
  /**
   * Record this session (stereo Ogg Opus: the user left, the Agent right) or not; omitted,
   * the Agent's `recording_enabled` decides. For backends that ask each user's consent.
   */
  recording?: boolean;
}

/** The backend's credential: join the data-only connection within five minutes. */
export interface ApplicationControl {
  livekit_url: string;
  room: string;
  /** LiveKit JWT for the bound backend identity; a secret, never sent to a browser. */
  token: string;
  identity: string;
  /** End of the join window (ISO 8601). */
  expires_at: string;
}

/** The browser's part, handed to the client library's `startSession` unchanged. */
export interface ApplicationSessionPart {
  session_id: string;
  agent_id: string;
  livekit: { url: string; token: string };
  room: string;
  /** The Agent's avatar, as a managed session's start answers it. */
  avatar: { id: string; name: string; image_url: string; idle_video_url?: string };
  expires_at: string;
}

/** The answer of a start: keep `control`, send `session` to the browser. */
export interface StartedApplicationSession {
  control: ApplicationControl;
  session: ApplicationSessionPart;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Starts (or, with the same `chatSessionId` and `requestId`, finds again with fresh
 * credentials) an application session. Failures are {@link ApplicationError}s carrying the
 * api's `code`, `status`, `requestId` and `retryable`.
 *
 * @example
 * ```ts
 * const { control, session } = await startApplicationSession(
 *   { baseUrl: 'https://api.example.com', apiKey: process.env.AWP_API_KEY! },
 *   {
 *     agentId,
 *     chatSessionId: conversation.id,
 *     requestId: conversation.startRequestId,
 *     application: { instructions: 'You are the booking desk of ...', tools: [dispatchTool] },
 *   },
 * );
 * const connection = await ApplicationConnection.join(control, handlers);
 * response.json(session); // the browser's part only
 * ```
 */
export async function startApplicationSession(
  http: ApplicationHttpOptions,
  input: StartApplicationSessionInput,
): Promise<StartedApplicationSession> {
  const url = `${http.baseUrl.replace(/\/+$/, '')}/v1/agents/${encodeURIComponent(input.agentId)}/application-sessions`;
  const timeout = AbortSignal.timeout(http.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = http.signal ? AbortSignal.any([http.signal, timeout]) : timeout;
  let response: Response;
  let text: string;
  try {
    response = await (http.fetch ?? fetch)(url, {
      method: 'POST',
      headers: {
        ...http.headers,
        authorization: `Bearer ${http.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(input),
      signal,
    });
    text = await response.text();
  } catch (cause) {
    if (http.signal?.aborted) {
      throw new ApplicationError({ code: 'aborted', message: 'the start was aborted', cause });
    }
    if (timeout.aborted) {
      throw new ApplicationError({
        code: 'timeout',
        message: `the start got no answer within ${http.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`,
        retryable: true,
        cause,
      });
    }
    throw new ApplicationError({
      code: 'connection_error',
      message: 'the api could not be reached',
      retryable: true,
      cause,
    });
  }
  const headerRequestId = response.headers.get('x-request-id') ?? undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) throw apiError(response.status, body, headerRequestId);
  if (!isStarted(body)) {
    throw new ApplicationError({
      code: 'invalid_response',
      message: `the start answered ${response.status} without {control, session}`,
      status: response.status,
      requestId: headerRequestId,
    });
  }
  return { control: body.control, session: body.session };
}

function apiError(status: number, body: unknown, headerRequestId: string | undefined) {
  const object = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof object.code === 'string') {
    return new ApplicationError({
      code: object.code,
      message: typeof object.detail === 'string' ? object.detail : object.code,
      status,
      requestId: typeof object.request_id === 'string' ? object.request_id : headerRequestId,
      retryable: object.retryable === true,
    });
  }
  return new ApplicationError({
    code: 'invalid_response',
    message: `HTTP ${status} without the service's error object`,
    status,
    requestId: headerRequestId,
    retryable: status === 429 || status >= 500,
  });
}

function strings(value: unknown, keys: string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const object = value as Record<string, unknown>;
  return keys.every((key) => typeof object[key] === 'string');
}

function isStarted(body: unknown): body is StartedApplicationSession {
  if (typeof body !== 'object' || body === null) return false;
  const { control, session } = body as Record<string, unknown>;
  return (
    strings(control, ['livekit_url', 'room', 'token', 'identity', 'expires_at']) &&
    strings(session, ['session_id', 'agent_id', 'room', 'expires_at']) &&
    strings((session as Record<string, unknown>).livekit, ['url', 'token'])
  );
}
