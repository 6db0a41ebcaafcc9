/** The operator API as the dashboard calls it: same origin, session cookie, JSON. */

/** A failed call: the spec's error object (`code`, `detail`) and the HTTP status. */
export class OperatorApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
    this.name = 'OperatorApiError';
  }
}

/** Called when any request answers 401: the session ended, so the page signs in again. */
let onSignedOut: (() => void) | undefined;
export function whenSignedOut(listener: (() => void) | undefined): void {
  onSignedOut = listener;
}

const BASE = '/operator/api';

/**
 * One operator API call. `body` is sent as JSON, as `multipart/form-data` when it is a
 * FormData, or as it is (with its own type) when it is a Blob or File. Resolves with the parsed JSON (undefined for 204); rejects with OperatorApiError.
 */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: {} };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body instanceof Blob) {
    init.body = body;
    init.headers = { 'content-type': body.type || 'application/octet-stream' };
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  let response: Response;
  try {
    response = await fetch(`${BASE}${path}`, init);
  } catch {
    throw new OperatorApiError(0, 'network_error', 'The service could not be reached.');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = (parsed ?? {}) as { code?: string; detail?: string };
    if (response.status === 401 && path !== '/sign-in') onSignedOut?.();
    throw new OperatorApiError(
      response.status,
      error.code ?? 'http_error',
      error.detail ?? `The request failed with HTTP ${response.status}.`,
    );
  }
  return parsed as T;
}

/** The message a page shows for a failed call. */
export function describeError(error: unknown): string {
  if (error instanceof OperatorApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
