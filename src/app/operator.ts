import { dashboardPageRoutes } from '../operator/dashboard-pages.ts';
import { secureCookieEnvironments } from '../operator/guard.ts';
import { createOperatorApi, type OperatorApiOptions } from '../operator/index.ts';
import type { Config } from './config.ts';
import type { Domain } from './domain.ts';

/** How long an address that signed in to an email lets it past that email's back-off. */
const OPERATOR_KNOWN_ADDRESS_TTL_MS = 90 * 24 * 3_600_000;

/** What the operator API uses of the other domains; the rest comes from configuration. */
export type OperatorDomainDependencies = Omit<
  OperatorApiOptions,
  'upstreamTimeouts' | 'sessionTtlMs' | 'redisPrefix' | 'signIn' | 'secureCookies' | 'demoPage'
> & { config: Config };

/**
 * The operator: its API, served beside `/v1` but kept out of `/v1/openapi.json`
 * (docs/decisions/operator.md), and the dashboard's web app, whose data comes from it.
 */
export function operatorDomain(deps: OperatorDomainDependencies): Domain {
  const { config, ...uses } = deps;
  const operatorApi = createOperatorApi({
    ...uses,
    upstreamTimeouts: {
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: config.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      idleTimeoutMs: config.UPSTREAM_IDLE_TIMEOUT_MS,
    },
    sessionTtlMs: config.OPERATOR_SESSION_TTL_HOURS * 3_600_000,
    redisPrefix: config.REDIS_PREFIX,
    signIn: {
      attemptsPerMinute: config.OPERATOR_SIGNIN_ATTEMPTS_PER_MINUTE,
      emailFailures: config.OPERATOR_SIGNIN_EMAIL_FAILURES,
      failureWindowMs: config.OPERATOR_SIGNIN_FAILURE_WINDOW_MINUTES * 60_000,
      knownAddressTtlMs: OPERATOR_KNOWN_ADDRESS_TTL_MS,
      trustedProxyHeader: config.TRUSTED_PROXY_HEADER,
    },
    secureCookies: secureCookieEnvironments(config),
    demoPage: config.DEMO_PAGE,
  });
  return {
    name: 'operator',
    internalRoutes: operatorApi.routes,
    pages: dashboardPageRoutes(),
  };
}
