import { AsyncLocalStorage } from 'node:async_hooks';

/** What a log line about a failure should say about the request that caused it. */
export interface RequestContext {
  request_id: string;
  method?: string;
  route: string;
}

/**
 * The request being served, carried through every await and timer that follows from it.
 * The failure policy (src/system/failure-policy.ts) reads it: Node runs the
 * `uncaughtException` and `unhandledRejection` listeners in the async context of the
 * failing code, so a fatal log line names the request.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>();
