import { ApiKeys } from '../../../src/auth/api-keys.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { rawRequest } from '../../helpers/http.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import { budget, sleep } from '../../helpers/wait.ts';

/**
 * The longest a change to a key or workspace may take to reach every api process
 * (`KEY_CACHE_TTL_MS` is at most 1 s): tests wait exactly this long, since the bound is
 * what they check.
 */
const PROPAGATION_MS = 1_000;

async function expectError(
  response: Response,
  status: number,
  code: string,
  retryable = false,
): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toEqual({
    event: 'error',
    request_id: response.headers.get('x-request-id'),
    code,
    retryable,
    detail: expect.any(String),
  });
  return body;
}

describeEachDialect('authentication and account checks on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let second: RunningServer;
  let ws: SeededWorkspace;

  const voices = (
    key: string | undefined,
    base = server.url,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${base}/v1/voices`, {
      headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
    });

  beforeAll(
    async ({ databases }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      const env = {
        ENVIRONMENT_HOSTS: 'dev.example.test=development,api.example.test=production',
        // Last-used times are written on shutdown only, never by the periodic flush in the
        // middle of a test that checks they were not written per request.
        KEY_LAST_USED_FLUSH_MS: String(24 * 3600_000),
      };
      [server, second] = await Promise.all([
        startServer({ database, env }),
        startServer({ database, env }),
      ]);
    },
    budget({ servers: 2 }),
  );

  afterAll(async () => {
    await Promise.all([server?.stop(), second?.stop()]);
  });

  it('accepts an active key of the right environment', async () => {
    const response = await voices(ws.productionKey);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(await response.json()).toEqual({ voices: expect.any(Array) });
    const dev = await voices(ws.developmentKey, server.devUrl);
    expect(dev.status).toBe(200);
  });

  it('refuses a missing Authorization header', async () => {
    await expectError(await voices(undefined), 401, 'unauthorized');
  });

  it('refuses a malformed Authorization header', async () => {
    await expectError(
      await fetch(`${server.url}/v1/voices`, { headers: { authorization: ws.productionKey } }),
      401,
      'unauthorized',
    );
    await expectError(
      await fetch(`${server.url}/v1/voices`, {
        headers: { authorization: `Basic ${ws.productionKey}` },
      }),
      401,
      'unauthorized',
    );
  });

  it('refuses a credential that is not an awp_ key', async () => {
    await expectError(
      await voices('sk_live_0123456789abcdefghijklmnopqrstuv'),
      401,
      'unauthorized',
    );
    await expectError(await voices('eyJhbGciOiJIUzI1NiJ9.e30.sig'), 401, 'unauthorized');
  });

  it('refuses an unknown awp_ key', async () => {
    await expectError(await voices(`awp_${'x'.repeat(40)}`), 401, 'unauthorized');
  });

  it('refuses a development key on the production host and vice versa', async () => {
    await expectError(await voices(ws.developmentKey, server.url), 401, 'unauthorized');
    await expectError(await voices(ws.productionKey, server.devUrl), 401, 'unauthorized');
  });

  it('takes the environment from a mapped Host header', async () => {
    const viaHost = (base: string, key: string, host: string) =>
      rawRequest(`${base}/v1/voices`, { headers: { host, authorization: `Bearer ${key}` } });
    // The production listener, addressed by the development host name.
    const refused = await viaHost(server.url, ws.productionKey, 'dev.example.test');
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'unauthorized' });
    expect((await viaHost(server.url, ws.developmentKey, 'dev.example.test')).status).toBe(200);
    expect((await viaHost(server.devUrl, ws.productionKey, 'api.example.test:443')).status).toBe(
      200,
    );
    // An unmapped host falls back to the listener's environment.
    expect((await viaHost(server.url, ws.productionKey, 'other.example.test')).status).toBe(200);
  });

  it('refuses a suspended workspace with 403 organization_suspended', async () => {
    const suspended = await seedWorkspace(handle, { suspended: true, billingProvisioned: false });
    // Suspension is checked before the billing account.
    await expectError(await voices(suspended.productionKey), 403, 'organization_suspended');
  });

  it('lifts the refusal when the workspace is resumed', async () => {
    const other = await seedWorkspace(handle, { suspended: true });
    await expectError(await voices(other.productionKey), 403, 'organization_suspended');
    await new Workspaces(handle.db).setStatus(other.workspaceId, 'active');
    await sleep(PROPAGATION_MS);
    expect((await voices(other.productionKey)).status).toBe(200);
  });

  it('refuses an unprovisioned workspace with 503 organization_account_missing', async () => {
    const unprovisioned = await seedWorkspace(handle, {
      billingProvisioned: false,
      capabilities: [],
    });
    // The billing account is checked before capabilities.
    await expectError(
      await voices(unprovisioned.productionKey),
      503,
      'organization_account_missing',
    );
  });

  it('refuses a workspace without the route’s product with 403 capability_disabled', async () => {
    const transcriptionOnly = await seedWorkspace(handle, { capabilities: ['transcription'] });
    await expectError(await voices(transcriptionOnly.productionKey), 403, 'capability_disabled');
    // The voice list is open to either product that uses voices: synthesis or Agents.
    const agentsOnly = await seedWorkspace(handle, { capabilities: ['agents'] });
    expect((await voices(agentsOnly.productionKey)).status).toBe(200);
  });

  it('refuses a revoked key on every instance within one second', async () => {
    const workspace = await seedWorkspace(handle);
    // Both instances have the key cached.
    expect((await voices(workspace.productionKey, server.url)).status).toBe(200);
    expect((await voices(workspace.productionKey, second.url)).status).toBe(200);
    await new ApiKeys(handle.db).revoke(workspace.workspaceId, workspace.productionKeyId);
    await sleep(PROPAGATION_MS);
    await expectError(await voices(workspace.productionKey, server.url), 401, 'unauthorized');
    await expectError(await voices(workspace.productionKey, second.url), 401, 'unauthorized');
    // The other key of the workspace still works.
    expect((await voices(workspace.developmentKey, second.devUrl)).status).toBe(200);
  });

  it('answers unknown routes and wrong methods with the error object', async () => {
    await expectError(await fetch(`${server.url}/v1/nothing-here`), 404, 'not_found');
    await expectError(await fetch(`${server.url}/`), 404, 'not_found');
    const wrongMethod = await fetch(`${server.url}/v1/voices`, { method: 'DELETE' });
    await expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  it('records last use of a key without a write per request', async () => {
    const workspace = await seedWorkspace(handle);
    expect((await voices(workspace.productionKey)).status).toBe(200);
    const before = await new ApiKeys(handle.db).list(workspace.workspaceId);
    // Batched: not yet written right after the request.
    expect(before.find((k) => k.id === workspace.productionKeyId)?.lastUsedAt).toBeNull();
  });

  it(
    'writes last-used times on shutdown and never logs a credential',
    async () => {
      const extra = await startServer({ database });
      const workspace = await seedWorkspace(handle);
      expect((await voices(workspace.productionKey, extra.url)).status).toBe(200);
      await fetch(`${extra.url}/v1/voices?token=${workspace.developmentKey}`, {
        headers: { authorization: `Bearer ${workspace.developmentKey}` },
      });
      await fetch(`${extra.url}/v1/voices`, {
        headers: { authorization: 'Bearer awp_notarealkey' },
      });
      expect(await extra.stop(), extra.output().slice(-4000)).toBe(0);
      const keys = await new ApiKeys(handle.db).list(workspace.workspaceId);
      expect(keys.find((k) => k.id === workspace.productionKeyId)?.lastUsedAt).toEqual(
        expect.any(String),
      );
      const output = extra.output();
      expect(output).toContain('"route":"/v1/voices"');
      for (const secret of [workspace.productionKey, workspace.developmentKey, 'awp_notarealkey']) {
        expect(output).not.toContain(secret);
        expect(output).not.toContain(secret.slice(4));
      }
    },
    budget({ servers: 1 }),
  );
});
