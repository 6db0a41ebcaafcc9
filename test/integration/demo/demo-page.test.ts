// The demo page under /demo: served on the development listener only when DEMO_PAGE is on,
// from loopback, with a strict CSP; its token endpoint mints with the bootstrap workspace's
// development key and refuses cross-site callers.

import { request as httpRequest } from 'node:http';
import { decodeJwt } from 'jose';
import { AgentSessionTokens } from '../../../src/agent-sessions/session-tokens.ts';
import { ApiKeys } from '../../../src/auth/api-keys.ts';
import { ApiKeyStore } from '../../../src/auth/key-store.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { DEMO_KEY_LABEL } from '../../../src/demo/routes.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { type BootstrapResult, bootstrapWorkspace } from '../../../src/workspaces/bootstrap.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import {
  beforeAll,
  describe,
  describeEachDialect,
  dialectSuite,
  expect,
  it,
} from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { RunningServer } from '../../helpers/server.ts';

/** A GET with a chosen Host header (fetch cannot set it). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describeEachDialect('demo page on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let boot: BootstrapResult;
  let dev: ApiClient;
  let anonymousDev: ApiClient;
  let publishedId: string;
  let draftId: string;

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get(dialect));
    const created = await bootstrapWorkspace(handle.db);
    if (!created) throw new Error('bootstrap did not create a workspace');
    boot = created;
    server = await apis.start(database, { env: { ...LLM_ENV, DEMO_PAGE: 'true' } });
    dev = apiClient(server.devUrl, boot.developmentKey.key);
    anonymousDev = apiClient(server.devUrl, undefined);
    const agent = async (slug: string, name: string) => {
      const reply = await dev('POST', '/v1/agents', {
        slug,
        voice_id: NATIVE_VOICE,
        display_name: name,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.id as string;
    };
    publishedId = await agent('clara', 'Clara');
    draftId = await agent('draft-only', 'Draft');
    expect((await dev('POST', `/v1/agents/${publishedId}/publish`)).status).toBe(200);
  });

  it('serves the page and its assets on the development listener with a strict CSP', async () => {
    for (const path of ['/demo', '/demo/']) {
      const page = await anonymousDev('GET', path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.bytes.toString()).toContain(
        '<script type="module" src="/demo/demo.js"></script>',
      );
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const script = await anonymousDev('GET', '/demo/demo.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.bytes.byteLength).toBeGreaterThan(100_000);
    expect((await anonymousDev('GET', '/demo/demo.css')).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
    expect((await anonymousDev('GET', '/demo/secrets.txt')).status).toBe(404);
  });

  it('answers 404 on the production listener and for a non-loopback Host', async () => {
    const production = apiClient(server.url, undefined);
    for (const [method, path] of [
      ['GET', '/demo'],
      ['GET', '/demo/demo.js'],
      ['GET', '/demo/api/agents'],
      ['POST', '/demo/api/session-token'],
    ] as const) {
      const reply = await production(
        method,
        path,
        method === 'POST' ? { agent_id: publishedId } : undefined,
      );
      expect({ path, status: reply.status, code: reply.body?.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
    }
    expect(await getWithHost(`${server.devUrl}/demo`, 'localhost:8081')).toBe(200);
    // A DNS-rebound name pointing at 127.0.0.1 must not reach the token endpoint.
    expect(await getWithHost(`${server.devUrl}/demo/api/agents`, 'attacker.example:8081')).toBe(
      404,
    );
  });

  it('lists the published Agents of the bootstrap workspace', async () => {
    const reply = await anonymousDev('GET', '/demo/api/agents');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ agents: [{ id: publishedId, slug: 'clara', name: 'Clara' }] });
  });

  it('mints a session token with the bootstrap development key, usable for that Agent', async () => {
    const reply = await anonymousDev('POST', '/demo/api/session-token', { agent_id: publishedId });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.body).toEqual({
      token: expect.any(String),
      expires_at: expect.stringMatching(/Z$/),
      agent_id: publishedId,
    });
    const claims = decodeJwt(reply.body.token);
    expect(claims).toMatchObject({
      agt: publishedId,
      env: 'development',
      org: boot.workspaceId,
      sub: boot.developmentKey.id,
    });
    const keyStore = new ApiKeyStore(
      handle.db,
      { cacheTtlMs: 0, lastUsedFlushMs: 60_000 },
      createLogger('silent'),
    );
    try {
      const tokens = new AgentSessionTokens(handle.db, {
        secret: LLM_ENV.TOKEN_SIGNING_SECRET,
        keys: keyStore,
      });
      const used = await tokens.consume(reply.body.token, publishedId, 'development');
      expect(used).toMatchObject({
        agentId: publishedId,
        environment: 'development',
        keyId: boot.developmentKey.id,
      });
    } finally {
      await keyStore.close();
    }
  });

  it('refuses unpublished Agents, bad bodies and cross-site callers', async () => {
    const code = async (body: unknown, headers: Record<string, string> = {}) => {
      const reply = await anonymousDev('POST', '/demo/api/session-token', body, headers);
      return `${reply.status} ${reply.body?.code}`;
    };
    expect(await code({ agent_id: draftId })).toBe('409 agent_not_published');
    expect(await code({ agent_id: 'clara' })).toBe('400 invalid_request');
    expect(await code({ agent_id: publishedId, end_user_id: 'me' })).toBe('400 invalid_request');
    expect(await code({ agent_id: publishedId }, { origin: 'https://evil.example' })).toBe(
      '403 forbidden',
    );
    expect(await code({ agent_id: publishedId }, { 'content-type': 'text/plain' })).toBe(
      '415 invalid_request',
    );
    expect(await code({ agent_id: publishedId }, { origin: server.devUrl })).toBe('201 undefined');
  });

  it('stops minting once the bootstrap development key is revoked', async () => {
    await new ApiKeys(handle.db).revoke(boot.workspaceId, boot.developmentKey.id);
    const reply = await anonymousDev('POST', '/demo/api/session-token', { agent_id: publishedId });
    expect({ status: reply.status, code: reply.body?.code }).toEqual({
      status: 503,
      code: 'service_unavailable',
    });
  });

  it('never mints with another workspace’s key labelled like the bootstrap one', async () => {
    // Runs after the bootstrap key was revoked: only a look across workspaces finds this one.
    const other = await new Workspaces(handle.db).create({
      name: 'Tenant',
      capabilities: ['tts', 'agents'],
      billingProvisioned: true,
      credits: 1000,
    });
    const lookalike = await new ApiKeys(handle.db).create(other.id, 'development', DEMO_KEY_LABEL);
    const tenant = apiClient(server.devUrl, lookalike.key);
    const created = await tenant('POST', '/v1/agents', {
      slug: 'tenant',
      voice_id: NATIVE_VOICE,
      display_name: 'Tenant',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await tenant('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);

    const listed = await anonymousDev('GET', '/demo/api/agents');
    expect([listed.status, listed.body?.code]).toEqual([503, 'service_unavailable']);
    const minted = await anonymousDev('POST', '/demo/api/session-token', {
      agent_id: created.body.id,
    });
    expect([minted.status, minted.body?.code]).toEqual([503, 'service_unavailable']);
  });
});

describe('demo page switched off', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(async ({ databases, apis }) => {
    database = await databases.empty('sqlite');
    server = await apis.start(database, { env: LLM_ENV });
  });

  it('answers 404 under /demo when DEMO_PAGE is not set', async () => {
    const dev = apiClient(server.devUrl, undefined);
    expect((await dev('GET', '/demo')).status).toBe(404);
    expect(
      (
        await dev('POST', '/demo/api/session-token', {
          agent_id: '6f1c2b9e-8a47-4c1d-9e3f-2b5a7c9d0e11',
        })
      ).status,
    ).toBe(404);
  });
});
