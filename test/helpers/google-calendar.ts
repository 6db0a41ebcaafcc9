import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { PublishedAgent } from '../../src/agents/agent-records.ts';
import { CalendarConnections } from '../../src/agents/capabilities/calendar/connections.ts';
import { createAgentToolbox } from '../../src/agents/capabilities/registry.ts';
import type { PreparedTools } from '../../src/agents/capabilities/toolbox.ts';
import { loadConfig } from '../../src/app/config.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import { SecretBox } from '../../src/secrets/secret-box.ts';
import type { ConsentPlan, FakeGoogle, FakeGoogleAccount } from '../fakes/google.ts';
import type { ApiClient } from './agents.ts';
import type { TestDatabase } from './database.ts';
import { captureLogger, type LogLine } from './log-capture.ts';
import { publishedAgentSnapshot } from './published-agent.ts';

export const CALLBACK_PATH = '/v1/google-calendar/oauth/callback';

/** The scopes Google reports after a full consent to what the service asks. */
export const GRANTED_SCOPES = [
  'https://www.googleapis.com/auth/calendar.events',
  'openid',
  'https://www.googleapis.com/auth/userinfo.email',
];

/**
 * Plays the end user's browser: opens `authorizationUrl` at the fake Google (which consents
 * as planned and redirects), then follows that redirect to the service's callback, without
 * following the callback's own redirect.
 */
export async function followConsent(authorizationUrl: string): Promise<Response> {
  const atGoogle = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(atGoogle.status, await atGoogle.clone().text()).toBe(302);
  const back = atGoogle.headers.get('location') ?? '';
  return fetch(back, { redirect: 'manual' });
}

/** The URL Google sent the browser back to, for a test that replays it. */
export async function consentRedirect(authorizationUrl: string): Promise<string> {
  const atGoogle = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(atGoogle.status).toBe(302);
  return atGoogle.headers.get('location') ?? '';
}

/** Starts a flow for `endUserId` through the api and consents as `account`. */
export async function connectCalendar(
  api: ApiClient,
  fake: FakeGoogle,
  endUserId: string,
  account: FakeGoogleAccount,
  options: { returnUrl?: string; plan?: Partial<ConsentPlan> } = {},
): Promise<{ state: string; callback: Response }> {
  const reply = await api('POST', '/v1/google-calendar/oauth-requests', {
    end_user_id: endUserId,
    ...(options.returnUrl ? { return_url: options.returnUrl } : {}),
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  fake.planConsent({ account, decision: 'allow', ...options.plan });
  return { state: reply.body.state, callback: await followConsent(reply.body.authorization_url) };
}

/** A published Agent's calendar tools, run in the test process on the test database. */
export interface CalendarTools {
  agent: PublishedAgent;
  logs: LogLine[];
  /** Stores a connection of `endUserId` to a grant the fake issued to `account`. */
  connect(
    endUserId: string,
    account: FakeGoogleAccount,
    accessTokenExpiresAt?: Date,
  ): Promise<{ refreshToken: string; accessToken: string }>;
  /** The conversation's tools and instructions, as the messages route and worker get them. */
  prepare(endUserId: string | null, timeZone?: string | null): Promise<PreparedTools>;
  /** One tool call the model makes: its parsed result and whether it succeeded. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON results.
  call(tools: PreparedTools, name: string, args: unknown): Promise<{ ok: boolean; result: any }>;
}

/**
 * The deployment's capabilities (`agentCapabilities`) built from `env` (a fake Google's, or
 * none) over the test database, with a published Agent that has calendar on.
 */
export async function calendarTools(
  handle: DatabaseHandle,
  database: TestDatabase,
  workspaceId: string,
  env: Record<string, string>,
  fake?: FakeGoogle,
): Promise<CalendarTools> {
  const config = loadConfig({ DATA_DIR: database.dataDir, ...env });
  const secretBox = SecretBox.fromConfig({ dataDir: database.dataDir });
  const { logger, lines } = captureLogger();
  const toolbox = createAgentToolbox({ config, db: handle.db, secretBox, logger });
  const agent = await publishedAgentSnapshot(handle.db, workspaceId, `planner-${randomUUID()}`, {
    calendarEnabled: true,
  });
  const scope = { workspaceId, environment: 'production' as const };
  return {
    agent,
    logs: lines,
    connect: async (endUserId, account, accessTokenExpiresAt) => {
      if (!fake) throw new Error('no fake Google');
      const grant = fake.issueGrant(account);
      await new CalendarConnections(handle.db, secretBox).save(scope, endUserId, {
        googleSubject: account.subject,
        googleEmail: account.email,
        scopes: GRANTED_SCOPES,
        refreshToken: grant.refreshToken,
        accessToken: grant.accessToken,
        accessTokenExpiresAt: accessTokenExpiresAt ?? new Date(Date.now() + 3_600_000),
      });
      return grant;
    },
    prepare: (endUserId, timeZone = 'Europe/Paris') =>
      toolbox.prepare(agent, {
        ...scope,
        agentId: agent.agentId,
        endUserId,
        timeZone,
        origin: { kind: 'conversation', conversationId: randomUUID() },
      }),
    call: async (tools, name, args) => {
      const call = { id: `call_${randomUUID()}`, name, arguments: JSON.stringify(args) };
      const outcome = await tools.call(call, new AbortController().signal);
      return { ok: outcome.ok, result: JSON.parse(outcome.output) };
    },
  };
}
