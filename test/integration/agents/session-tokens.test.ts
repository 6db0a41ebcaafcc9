import { decodeJwt } from 'jose';
import {
  AGENT_SESSION_TOKEN_TTL_MS,
  AgentSessionTokens,
} from '../../../src/agent-sessions/session-tokens.ts';
import { ApiKeys } from '../../../src/auth/api-keys.ts';
import { ApiKeyStore } from '../../../src/auth/key-store.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { ApiError } from '../../../src/errors.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

const END_USER = '0f8fad5b-d9cb-469f-a165-70867728950e';

describeEachDialect('Agent session tokens on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let keyStore: ApiKeyStore;
  let counter = 0;

  const expectError = (
    reply: { status: number; body: { code?: string } },
    status: number,
    code: string,
  ) => {
    expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
  };
  /** The domain object the sessions route uses, sharing the server's secret and database. */
  const tokens = (now?: () => number) =>
    new AgentSessionTokens(handle.db, {
      secret: LLM_ENV.TOKEN_SIGNING_SECRET,
      keys: keyStore,
      ...(now ? { now } : {}),
    });
  const publishedAgent = async (client: ApiClient = api, fields: Record<string, unknown> = {}) => {
    const created = await client('POST', '/v1/agents', {
      slug: `tok-${++counter}`,
      voice_id: NATIVE_VOICE,
      ...fields,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await client('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    return created.body.id as string;
  };
  const mint = async (agentId: string, body: unknown = {}, client: ApiClient = api) => {
    const reply = await client('POST', `/v1/agents/${agentId}/session-tokens`, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.token as string;
  };
  const codeOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'ok';
    } catch (error) {
      if (error instanceof ApiError) return `${error.status} ${error.code}`;
      throw error;
    }
  };

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    keyStore = new ApiKeyStore(
      handle.db,
      { cacheTtlMs: 0, lastUsedFlushMs: 60_000 },
      createLogger('silent'),
    );
    server = await apis.start(database, { env: LLM_ENV });
    api = apiClient(server.url, ws.productionKey);
  });

  afterAll(async () => {
    await keyStore?.close();
  });

  it('mints a 15-minute token bound to the Agent, with no-store', async () => {
    const agentId = await publishedAgent();
    const before = Date.now();
    for (const body of [{}, undefined]) {
      const reply = await api('POST', `/v1/agents/${agentId}/session-tokens`, body);
      expect(reply.status).toBe(201);
      expect(reply.headers.get('cache-control')).toBe('no-store');
      expect(reply.body).toEqual({
        token: expect.any(String),
        expires_at: expect.stringMatching(/Z$/),
        agent_id: agentId,
        capabilities: { managed_voice_agent: true, transport: 'webrtc' },
      });
      const validityMs = Date.parse(reply.body.expires_at) - before;
      expect(validityMs).toBeGreaterThan(AGENT_SESSION_TOKEN_TTL_MS - 2000);
      expect(validityMs).toBeLessThanOrEqual(AGENT_SESSION_TOKEN_TTL_MS + 1000);
      const claims = decodeJwt(reply.body.token);
      expect(claims).toMatchObject({
        aud: 'awp:agent-session',
        agt: agentId,
        org: ws.workspaceId,
        env: 'production',
        sub: ws.productionKeyId,
      });
      expect(typeof claims.jti).toBe('string');
    }
  });

  it('answers 409 for unpublished and voiceless Agents and 404 for unknown ones', async () => {
    const draft = (
      await api('POST', '/v1/agents', { slug: `tok-${++counter}`, voice_id: NATIVE_VOICE })
    ).body;
    expectError(
      await api('POST', `/v1/agents/${draft.id}/session-tokens`, {}),
      409,
      'agent_not_published',
    );
    const voiceless = (await api('POST', '/v1/agents', { slug: `tok-${++counter}` })).body;
    expectError(
      await api('POST', `/v1/agents/${voiceless.id}/session-tokens`, {}),
      409,
      'agent_not_api_ready',
    );
    expectError(
      await api('POST', '/v1/agents/01a20000-0000-7000-8000-000000000000/session-tokens', {}),
      404,
      'not_found',
    );
    const devApi = apiClient(server.devUrl, ws.developmentKey);
    expectError(
      await devApi('POST', `/v1/agents/${draft.id}/session-tokens`, {}),
      404,
      'not_found',
    );
  });

  it('runs the publication: a draft edit does not change what minting checks', async () => {
    const agentId = await publishedAgent();
    await api('PATCH', `/v1/agents/${agentId}`, { voice_id: null, memory_enabled: true });
    await mint(agentId);
  });

  it('requires end_user_id when the published Agent has memory, documents or calendar', async () => {
    for (const [field, code] of [
      ['memory_enabled', 'memory_identity_required'],
      ['documents_enabled', 'documents_identity_required'],
      ['calendar_enabled', 'calendar_identity_required'],
    ] as const) {
      const agentId = await publishedAgent(api, { [field]: true });
      expectError(await api('POST', `/v1/agents/${agentId}/session-tokens`, {}), 400, code);
      const token = await mint(agentId, { end_user_id: END_USER });
      expect(decodeJwt(token).eu).toBe(END_USER);
    }
    const agentId = await publishedAgent();
    for (const body of [{ end_user_id: 'user-42' }, { end_user_id: 42 }, { other: 1 }, []]) {
      expectError(
        await api('POST', `/v1/agents/${agentId}/session-tokens`, body),
        400,
        'invalid_request',
      );
    }
  });

  it('runs the account checks', async () => {
    const ttsOnly = await seedWorkspace(handle, { capabilities: ['tts'] });
    expectError(
      await apiClient(server.url, ttsOnly.productionKey)('POST', '/v1/agents/x/session-tokens', {}),
      403,
      'capability_disabled',
    );
    const other = await seedWorkspace(handle);
    const otherApi = apiClient(server.url, other.productionKey);
    const agentId = await publishedAgent(otherApi);
    const workspaces = new Workspaces(handle.db);
    await workspaces.setStatus(other.workspaceId, 'suspended');
    await new Promise((resolve) => setTimeout(resolve, 600)); // the server's key cache
    expectError(
      await otherApi('POST', `/v1/agents/${agentId}/session-tokens`, {}),
      403,
      'organization_suspended',
    );
    await workspaces.setStatus(other.workspaceId, 'active');
    expectError(
      await apiClient(server.url, undefined)('POST', `/v1/agents/${agentId}/session-tokens`, {}),
      401,
      'unauthorized',
    );
  });

  it('consume: returns the claims once; a second use is 401', async () => {
    const agentId = await publishedAgent();
    const token = await mint(agentId, { end_user_id: END_USER });
    const claims = await tokens().consume(token, agentId, 'production');
    expect(claims).toMatchObject({
      agentId,
      workspaceId: ws.workspaceId,
      environment: 'production',
      keyId: ws.productionKeyId,
      endUserId: END_USER,
    });
    expect(claims.expiresAt.getTime()).toBeGreaterThan(Date.now());
    // Another process (a new instance on the same database) refuses it too.
    expect(await codeOf(tokens().consume(token, agentId, 'production'))).toBe('401 unauthorized');
  });

  it('consume: of two concurrent uses exactly one wins', async () => {
    const agentId = await publishedAgent();
    for (let round = 0; round < 3; round++) {
      const token = await mint(agentId);
      const results = await Promise.all(
        [
          tokens().consume(token, agentId, 'production'),
          tokens().consume(token, agentId, 'production'),
          tokens().consume(token, agentId, 'production'),
        ].map(codeOf),
      );
      expect(results.sort()).toEqual(['401 unauthorized', '401 unauthorized', 'ok']);
    }
  });

  it('consume: another Agent is 403 session_token_agent_mismatch and leaves the token unused', async () => {
    const agentId = await publishedAgent();
    const otherId = await publishedAgent();
    const token = await mint(agentId);
    expect(await codeOf(tokens().consume(token, otherId, 'production'))).toBe(
      '403 session_token_agent_mismatch',
    );
    expect(await codeOf(tokens().consume(token, agentId, 'production'))).toBe('ok');
  });

  it('consume: expired, forged and malformed tokens are 401', async () => {
    const agentId = await publishedAgent();
    const token = await mint(agentId);
    const expiresAt = (decodeJwt(token).exp as number) * 1000;
    expect(await codeOf(tokens(() => expiresAt + 1000).consume(token, agentId, 'production'))).toBe(
      '401 unauthorized',
    );
    expect(await codeOf(tokens(() => expiresAt - 1000).consume(token, agentId, 'production'))).toBe(
      'ok',
    );

    const fresh = await mint(agentId);
    const [head, payload, signature] = fresh.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(
      await codeOf(tokens().consume(`${head}.${payload}.${flipped}`, agentId, 'production')),
    ).toBe('401 unauthorized');
    const otherSecret = new AgentSessionTokens(handle.db, {
      secret: 'x'.repeat(40),
      keys: keyStore,
    });
    const foreign = (
      await otherSecret.mint({
        agentId,
        workspaceId: ws.workspaceId,
        environment: 'production',
        keyId: ws.productionKeyId,
      })
    ).token;
    expect(await codeOf(tokens().consume(foreign, agentId, 'production'))).toBe('401 unauthorized');
    for (const garbage of ['', 'abc', 'a.b.c', 'x'.repeat(5000)]) {
      expect(await codeOf(tokens().consume(garbage, agentId, 'production'))).toBe(
        '401 unauthorized',
      );
    }
    // None of these burnt the real token.
    expect(await codeOf(tokens().consume(fresh, agentId, 'production'))).toBe('ok');
  });

  it('consume: a token dies with its issuing key', async () => {
    const keys = new ApiKeys(handle.db);
    const extra = await keys.create(ws.workspaceId, 'production', 'revoked later');
    const agentId = await publishedAgent();
    const token = await mint(agentId, {}, apiClient(server.url, extra.key));
    await keys.revoke(ws.workspaceId, extra.id);
    expect(await codeOf(tokens().consume(token, agentId, 'production'))).toBe('401 unauthorized');
  });

  it('records used tokens until they expire, then purges them', async () => {
    const agentId = await publishedAgent();
    const token = await mint(agentId);
    await tokens().consume(token, agentId, 'production');
    const jti = decodeJwt(token).jti as string;
    const row = () =>
      handle.db
        .selectFrom('agent_session_token_uses')
        .selectAll()
        .where('jti', '=', jti)
        .executeTakeFirst();
    expect(await row()).toMatchObject({ jti, agent_id: agentId });
    expect(await tokens().purgeExpired()).toBe(0);
    expect(await row()).toBeDefined();
    const later = tokens(() => Date.now() + AGENT_SESSION_TOKEN_TTL_MS + 60_000);
    expect(await later.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await row()).toBeUndefined();
  });
});
