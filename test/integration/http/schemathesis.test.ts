// Schemathesis (PyPI, installed by scripts/install-schemathesis.sh) fuzzes the running
// service from its own OpenAPI document with every check. Loopback only.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { CAPABILITIES } from '../../../src/workspaces/capabilities.ts';
import { FakeGoogle } from '../../fakes/google.ts';
import { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import { ROOT, type RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

const SCHEMATHESIS = path.join(
  process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'),
  'awp/schemathesis-venv/bin/schemathesis',
);

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(SCHEMATHESIS, args, {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' },
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('schemathesis against the running service', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;
  let key: string;
  let llm: FakeOpenAiChat | undefined;
  let google: FakeGoogle | undefined;

  beforeAll(
    async ({ databases, apis, livekit }) => {
      if (!existsSync(SCHEMATHESIS)) {
        throw new Error(`${SCHEMATHESIS} is missing: run bash scripts/install-schemathesis.sh`);
      }
      database = await databases.empty('sqlite');
      const handle = await openTestDatabase(database);
      // Every product, so each route is fuzzed past its capability check.
      key = (
        await seedWorkspace(handle, {
          credits: 10_000_000,
          capabilities: [...CAPABILITIES],
        })
      ).productionKey;
      await handle.close();
      // The language models are a fake that answers at once: the fuzzer's translations and
      // messages must not wait on the embedded model.
      llm = await FakeOpenAiChat.start();
      // Every request counts against the rate limit: fuzzing is many requests in a burst.
      // A Google on loopback, so consent flows start and a code the fuzzer sends with a state
      // it was issued is refused by Google (403 page), as on a deployment that reaches Google.
      google = await FakeGoogle.start();
      server = await apis.start(database, {
        env: {
          TTS_RATE_LIMIT_PER_MINUTE: '0',
          OPENAI_BASE_URL: llm.baseUrl,
          OPENAI_API_KEY: llm.apiKey ?? '',
          LOCAL_LLM: 'false',
          // The file's LiveKit server, as a deployment with Agents has: session starts are
          // answered 201.
          LIVEKIT_URL: livekit.url,
          LIVEKIT_API_KEY: livekit.apiKey,
          LIVEKIT_API_SECRET: livekit.apiSecret,
          ...google.env(),
        },
      });
    },
    budget({ servers: 2 }),
  );

  afterAll(async () => {
    await llm?.close();
    await google?.close();
  });

  it('finds no failure and no error with --checks all', async () => {
    const result = await run([
      '--config-file',
      'test/schemathesis/schemathesis.toml',
      'run',
      `${server.url}/v1/openapi.json`,
      '--header',
      `Authorization: Bearer ${key}`,
      '--checks',
      'all',
      '--max-examples',
      '25',
      '--seed',
      '20261123',
    ]);
    expect(result.output).toMatch(/\d+ generated, \d+ passed/);
    if (result.code !== 0) throw new Error(`schemathesis failed:\n${result.output}`);
    // Transport failures, not the word in a path (`/v1/google-calendar/connections/...`).
    expect(result.output).not.toMatch(
      /errored|Network Error|Connection ?(?:error|refused|reset|aborted|timeout)/i,
    );
  }, 600_000);
});
