import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { API_COMMAND, ROOT, type RunningServer, serviceEnv } from '../../helpers/server.ts';
import { BUDGET_MS, budget } from '../../helpers/wait.ts';

describe('system routes', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(
    async ({ databases, apis }) => {
      database = await databases.empty('sqlite');
      server = await apis.start(database);
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await server?.stop();
  });

  it('runs on the native uWebSockets.js binding', () => {
    const listening = server
      .logs()
      .filter((l) => l.msg === 'listening' && l.environment !== 'metrics');
    expect(listening).toHaveLength(2);
    expect(listening.every((l) => l.uws === 'native')).toBe(true);
  });

  it('answers /healthz with 200 and a request id', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers /readyz with the state of the database and Redis', async () => {
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', redis: 'ok', accepting: 'ok' },
    });
  });

  it('serves Prometheus metrics that count requests on the internal listener only', async () => {
    await fetch(`${server.url}/healthz`);
    for (const base of [server.url, server.devUrl]) {
      const publicScrape = await fetch(`${base}/metrics`);
      expect(publicScrape.status).toBe(404);
      expect(await publicScrape.text()).not.toContain('awp_');
    }
    const metricsListener = server.logs().find((l) => l.environment === 'metrics');
    expect(metricsListener).toMatchObject({ msg: 'listening', host: '127.0.0.1' });
    const response = await fetch(`${server.metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(
      /awp_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/,
    );
    expect(text).toContain('awp_http_request_duration_seconds_bucket');
    expect(text).toContain('awp_process_cpu_seconds_total');
  });

  it('never answers with HTML or a stack trace', async () => {
    for (const path of ['/v1/', '/%', '/v1/voices/../../etc/passwd', '/v1/voices?x=%zz']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.headers.get('content-type')).toBe('application/json');
      const text = await response.text();
      expect(text).not.toMatch(/<html|at .*\.ts:\d+/i);
    }
  });
});

describe('readiness without Redis', () => {
  dialectSuite('sqlite');
  it(
    'reports not ready while Redis does not answer',
    async ({ databases, apis }) => {
      const database = await databases.empty('sqlite');
      const server = await apis.start(database, { env: { REDIS_URL: 'redis://127.0.0.1:1' } });
      try {
        const response = await fetch(`${server.url}/readyz`);
        expect(response.status).toBe(503);
        expect(await response.json()).toEqual({
          status: 'not_ready',
          checks: { database: 'ok', redis: 'failed', accepting: 'ok' },
        });
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      } finally {
        await server.stop();
      }
    },
    budget({ servers: 1 }),
  );
});

describe('configuration', () => {
  dialectSuite('sqlite');
  it(
    'refuses to start with a clear error naming the bad variable',
    async ({ databases }) => {
      const database = await databases.empty('sqlite');
      const result = spawnSync(process.execPath, API_COMMAND, {
        cwd: ROOT,
        env: serviceEnv(database, { PORT: 'eighty', DATABASE_URL: 'mysql://x' }),
        encoding: 'utf8',
        // A process that starts and exits at its configuration check.
        timeout: BUDGET_MS.server,
      });
      expect(result.status).toBe(78);
      expect(result.stderr).toContain('PORT');
      expect(result.stderr).toContain('DATABASE_URL');
      expect(result.stderr).not.toMatch(/at .*\.ts:\d+/);
    },
    budget({ servers: 1 }),
  );
});
