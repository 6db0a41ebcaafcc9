import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { waitUntil } from '../../helpers/credit.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { ROOT, serviceEnv } from '../../helpers/server.ts';

interface JobsProcess {
  child: ChildProcess;
  probeUrl: string;
}

/** Starts `dist/src/jobs/main.js` and reads its probe port from the start-up log line. */
async function startJobs(database: TestDatabase, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/src/jobs/main.js'], {
    cwd: ROOT,
    env: serviceEnv(database, { LOG_FORMAT: 'json', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  let port = 0;
  await waitUntil(
    async () => {
      const line = output.split('\n').find((l) => l.includes('job workers running'));
      port = line ? (JSON.parse(line) as { probe_port: number }).probe_port : 0;
      return port > 0;
    },
    20_000,
    'the jobs process',
  );
  return { child, probeUrl: `http://127.0.0.1:${port}` } satisfies JobsProcess;
}

async function getJson(url: string) {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

describeEachDialect('jobs process probes (%s)', (dialect) => {
  let database: TestDatabase;
  const running: ChildProcess[] = [];

  beforeAll(async ({ databases }) => {
    database = await databases.empty(dialect);
  });

  afterAll(async () => {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('answers /healthz and /readyz with the api’s shapes while its database and Redis answer', async () => {
    const jobs = await startJobs(database);
    running.push(jobs.child);
    expect(await getJson(`${jobs.probeUrl}/healthz`)).toEqual({
      status: 200,
      body: { status: 'ok' },
    });
    expect(await getJson(`${jobs.probeUrl}/readyz`)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: 'ok', redis: 'ok', accepting: 'ok' } },
    });
    expect((await fetch(`${jobs.probeUrl}/metrics`)).status).toBe(404);
  });

  it('is alive but not ready while Redis cannot be reached', async () => {
    const jobs = await startJobs(database, { REDIS_URL: 'redis://127.0.0.1:1' });
    running.push(jobs.child);
    expect((await getJson(`${jobs.probeUrl}/healthz`)).status).toBe(200);
    expect(await getJson(`${jobs.probeUrl}/readyz`)).toEqual({
      status: 503,
      body: { status: 'not_ready', checks: { database: 'ok', redis: 'failed', accepting: 'ok' } },
    });
  });
});
