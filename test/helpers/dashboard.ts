// The operator dashboard in headless Chromium against a real api: a bootstrapped workspace
// (its owner has a password), a browser, and pages that record console errors.

import type { Kysely } from 'kysely';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { AgentStore } from '../../src/agents/agent-store.ts';
import { Agents } from '../../src/agents/agents.ts';
import { createStarterAgent } from '../../src/agents/starter-agent.ts';
import { loadConfig } from '../../src/app/config.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import type { Database } from '../../src/db/schema.ts';
import { llmCatalogFromConfig } from '../../src/llm/registry.ts';
import { PublicVoices } from '../../src/voices/public-voices.ts';
import { VoiceStore } from '../../src/voices/voice-store.ts';
import { type BootstrapResult, bootstrapWorkspace } from '../../src/workspaces/bootstrap.ts';
import type { FileApis } from '../fixtures/api.ts';
import type { OpenDatabase } from '../fixtures/database.ts';
import { launchBrowser, type TestBrowser } from './browser.ts';
import type { TestDatabase } from './database.ts';
import type { RunningServer } from './server.ts';

const EXPECTED_NETWORK_LOG =
  /^Failed to load resource: the server responded with a status of 4\d\d/;

export interface DashboardFixture {
  database: TestDatabase;
  /** The database fixture's data layer on `database`. */
  handle: DatabaseHandle;
  server: RunningServer;
  browser: TestBrowser;
  boot: BootstrapResult;
  /** The dashboard's address on the development listener (a loopback host name). */
  dashboardUrl: string;
  /** Console errors and uncaught exceptions of every page opened with `newPage`. */
  problems: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * On the file's database `open` (the database fixture): a bootstrapped workspace, the api
 * serving the built dashboard (started with the file's `apis`), and Chromium. `close` stops
 * the browser and the api; the database stays the file's.
 */
export async function startDashboard(
  { database, handle }: OpenDatabase,
  apis: FileApis,
  env: Record<string, string> = {},
  options: {
    /** Seeds the database; `database.dataDir` is the api's DATA_DIR. */
    beforeStart?: (
      db: Kysely<Database>,
      boot: BootstrapResult,
      database: TestDatabase,
    ) => Promise<unknown>;
    /** A WAV file the fake microphone plays (default: a tone). */
    microphone?: Buffer;
  } = {},
): Promise<DashboardFixture> {
  const boot = await bootstrapWorkspace(handle.db);
  if (!boot) throw new Error('bootstrap did not create a workspace');
  await options.beforeStart?.(handle.db, boot, database);
  const server = await apis.start(database, { env });
  const browser = await launchBrowser({ microphone: options.microphone });
  const problems: string[] = [];
  return {
    database,
    handle,
    server,
    browser,
    boot,
    dashboardUrl: `${server.devUrl.replace('127.0.0.1', 'localhost')}/operator`,
    problems,
    newPage: async () => {
      const context = await browser.browser.newContext();
      const page = await context.newPage();
      page.on('console', (message) => {
        // Chromium logs every 4xx answer (a 401 before sign-in); the page handles those.
        if (message.type() === 'error' && !EXPECTED_NETWORK_LOG.test(message.text())) {
          problems.push(message.text());
        }
      });
      page.on('pageerror', (error) => problems.push(error.message));
      return page;
    },
    close: async () => {
      await browser.close();
      await server.stop();
    },
  };
}

/** Opens `path` of the dashboard and signs in through its form; waits for the page. */
export async function signInThroughPage(
  page: Page,
  dashboardUrl: string,
  path: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${dashboardUrl}${path}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
}

/**
 * What the first start does (src/main.ts): the published starter Agent `guide` in the
 * workspace's development environment, with the language models `env` offers. Returns its id.
 */
export async function seedStarterAgent(
  db: Kysely<Database>,
  workspaceId: string,
  env: Record<string, string>,
): Promise<string> {
  const llm = llmCatalogFromConfig(loadConfig(env), pino({ level: 'silent' }));
  const agents = new Agents(new AgentStore(db), new PublicVoices(new VoiceStore(db)), llm);
  const agentId = await createStarterAgent(agents, workspaceId, 'development');
  if (!agentId) throw new Error('the starter Agent was not created');
  return agentId;
}
