/**
 * The example backend's settings, read once from the environment. Only `AWP_API_KEY` and
 * `AWP_AGENT_ID` are required; everything else has a default that runs next to `npm start`.
 */

import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const schema = z.object({
  /** A workspace key of the api (`awp_...`): server-side only, never logged or sent. */
  AWP_API_KEY: z.string().regex(/^awp_\S+$/, 'must be a workspace key (awp_...)'),
  /** The api's origin: the production listener of `npm start` by default. */
  AWP_API_URL: z.url().default('http://localhost:8080'),
  /** The published Agent whose voice, model and speech settings the sessions use. */
  AWP_AGENT_ID: z.uuid(),
  /** Where this example listens. Port 0 picks a free one (printed at start). */
  EXAMPLE_HOST: z.string().default('127.0.0.1'),
  EXAMPLE_PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  /**
   * Signs the sign-in cookie. Unset: a random secret per process, so a restart signs
   * everyone out (fine for a demo; a real backend keeps a stable secret).
   */
  EXAMPLE_COOKIE_SECRET: z.string().min(32).optional(),
  /** How long the simulated courier dispatch takes from first progress to result. */
  EXAMPLE_DISPATCH_MS: z.coerce.number().int().min(0).max(600_000).default(6_000),
  /** How long joining waits for the Agent (worker) to appear in the room. */
  EXAMPLE_AGENT_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
});

/** The validated settings. */
export interface ExampleConfig {
  apiKey: string;
  apiUrl: string;
  agentId: string;
  host: string;
  port: number;
  cookieSecret: Buffer;
  dispatchMs: number;
  agentTimeoutMs: number;
}

/**
 * Reads and checks the environment; throws one readable error naming every bad variable
 * (never echoing a value, since one of them is a key).
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env);
 * ```
 */
export function loadConfig(env: NodeJS.ProcessEnv): ExampleConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`examples/backend: bad environment\n  ${problems.join('\n  ')}`);
  }
  const value = parsed.data;
  return {
    apiKey: value.AWP_API_KEY,
    apiUrl: value.AWP_API_URL.replace(/\/+$/, ''),
    agentId: value.AWP_AGENT_ID.toLowerCase(),
    host: value.EXAMPLE_HOST,
    port: value.EXAMPLE_PORT,
    cookieSecret: value.EXAMPLE_COOKIE_SECRET
      ? Buffer.from(value.EXAMPLE_COOKIE_SECRET, 'utf8')
      : randomBytes(32),
    dispatchMs: value.EXAMPLE_DISPATCH_MS,
    agentTimeoutMs: value.EXAMPLE_AGENT_TIMEOUT_MS,
  };
}
