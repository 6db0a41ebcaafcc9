import type { RetryPolicy } from '../retry.ts';

/** Settings of the client a socket needs. */
export interface StreamContext {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
  userAgent: string;
}
