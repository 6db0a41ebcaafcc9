import type { Logger } from '../observability/logger.ts';
import { requestContext } from '../observability/request-context.ts';

/** Exit code after an unhandled failure (EX_SOFTWARE): the supervisor restarts the process. */
export const FATAL_EXIT_CODE = 70;

export interface FailurePolicyOptions {
  logger: Logger;
  /**
   * Stops taking work, lets work in flight finish (bounded by its own grace period),
   * closes resources. Called once.
   */
  drain: () => Promise<void>;
  /** Longest wait for `drain` before exiting anyway. */
  drainTimeoutMs: number;
}

/**
 * An unhandled rejection or uncaught exception means some state of this process is no
 * longer known to be right (a ledger row half closed, a stream never ended). The process
 * logs it as fatal with the request it came from, drains what is in flight so clients
 * are not cut off, and exits non-zero so its supervisor starts a clean one. Carrying on
 * would serve requests from unknown state; exiting at once would cut every client off.
 */
export function installFailurePolicy(options: FailurePolicyOptions): void {
  let failing = false;
  const fatal = (kind: 'unhandledRejection' | 'uncaughtException', reason: unknown) => {
    options.logger.fatal(
      { err: reason, failure: kind, ...requestContext.getStore() },
      'unhandled failure: draining, then exiting for a restart',
    );
    if (failing) return;
    failing = true;
    // Not unref'd: the process must end even if draining hangs.
    setTimeout(() => process.exit(FATAL_EXIT_CODE), options.drainTimeoutMs);
    options
      .drain()
      .catch((error: unknown) => options.logger.error({ err: error }, 'draining failed'))
      .finally(() => process.exit(FATAL_EXIT_CODE));
  };
  process.on('unhandledRejection', (reason) => fatal('unhandledRejection', reason));
  process.on('uncaughtException', (error) => fatal('uncaughtException', error));
}

/**
 * Tests only (NODE_ENV=test): with `TEST_FAULT=unhandled_rejection` or
 * `uncaught_exception`, SIGUSR2 makes the process fail that way inside a request context,
 * so a test can check the policy on the real process at a moment it chooses.
 */
export function installTestFault(): void {
  const fault = process.env.TEST_FAULT;
  if (process.env.NODE_ENV !== 'test' || !fault) return;
  process.on('SIGUSR2', () => {
    requestContext.run({ request_id: 'test-fault', route: 'test-fault' }, () => {
      setTimeout(() => {
        if (fault === 'uncaught_exception') throw new Error('test fault: uncaught exception');
        void Promise.reject(new Error('test fault: unhandled rejection'));
      }, 0);
    });
  });
}
