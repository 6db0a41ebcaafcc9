import type { RetryPolicy } from './retry.ts';

/**
 * How a client reaches one environment of the service. A key, a base URL and the streaming
 * URL belong together: a development key fails against production.
 *
 * @example
 * ```ts
 * const client = new AwpClient({
 *   apiKey: process.env.AWP_API_KEY!,
 *   baseUrl: 'https://api.example.com',
 *   maxAttempts: 4,
 * });
 * ```
 */
export interface ClientOptions {
  /** A permanent workspace key (`awp_...`). Keep it on the server; never log it. */
  apiKey: string;
  /** Base URL of the environment (`https://api.example.com`); `/v1/...` is appended. */
  baseUrl: string;
  /** Per-attempt time limit of REST calls, in milliseconds. Default 60,000. */
  timeoutMs?: number;
  /** Attempts in total per call, the first included; 1 disables retries. Default 3. */
  maxAttempts?: number;
  /** Finer retry timing; see {@link RetryPolicy}. */
  retry?: Partial<Omit<RetryPolicy, 'maxAttempts'>>;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** A `fetch` implementation (an undici `fetch` with its own dispatcher, say). Default: the global one. */
  fetch?: typeof fetch;
}

/**
 * Per-call settings, accepted as the last argument of every method.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const voices = await client.voices.list({ signal: controller.signal, timeoutMs: 5_000 });
 * ```
 */
export interface RequestOptions {
  /** Aborts the call (and any retry wait); the call rejects with `AwpAbortError`. */
  signal?: AbortSignal;
  /** This call's per-attempt time limit, in milliseconds. */
  timeoutMs?: number;
  /** This call's attempts in total. */
  maxAttempts?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}
