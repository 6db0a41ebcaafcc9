// API keys follow the member who created them, against the real compiled api on both
// databases: the operator API names each key's creator and role, a key made by a Builder
// cannot do what the dashboard refuses a Builder (webhook endpoints, deleting Agents and
// recordings: 403 forbidden), keys of the operator tool keep every permission, a demoted
// creator's keys lose theirs, and removing a member revokes the keys they created.

import { ApiKeys } from '../../../src/auth/api-keys.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  addOperator,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { OperatorClient } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({}) });

const ALL = ['manage_webhooks', 'delete_agents', 'delete_recordings'];
const WEBHOOK = { url: 'https://hooks.example.com/awp', events: ['agent_session.ended'] };

interface KeyView {
  id: string;
  status: string;
  created_by: { user_id: string; email: string | null; role: string } | null;
  permissions: string[];
}

describeEachDialect('API keys follow their creator on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  const clients: Record<'owner' | 'admin' | 'builder', OperatorClient> = {} as never;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      for (const role of ['owner', 'admin', 'builder'] as const) {
        await addOperator(handle.db, ws, { role });
      }
      server = await apis.start(database, { env: LLM_ENV });
      for (const role of ['owner', 'admin', 'builder'] as const) {
        clients[role] = await signInAs(server.url, `${role}@example.com`);
      }
    },
    budget({ servers: 1 }),
  );

  const createKey = async (client: OperatorClient, label: string) => {
    const response = await client.request('POST', '/keys', { label });
    expect(response.status).toBe(201);
    const { key } = response.body as { key: KeyView & { secret: string } };
    return { ...key, api: apiClient(server.url, key.secret) };
  };
  const userIdOf = async (email: string) => {
    const response = await clients.owner.request('GET', '/members');
    const members = (response.body as { members: { email: string; user_id: string }[] }).members;
    const found = members.find((member) => member.email === email);
    if (!found) throw new Error(`${email} is not listed`);
    return found.user_id;
  };
  const listedKey = async (id: string) => {
    const response = await clients.owner.request('GET', '/keys');
    expect(response.status).toBe(200);
    return (response.body as { keys: KeyView[] }).keys.find((key) => key.id === id);
  };
  const createAgent = async (api: ApiClient) => {
    const reply = await api('POST', '/v1/agents', {
      slug: `agent-${Math.random().toString(36).slice(2, 10)}`,
      voice_id: NATIVE_VOICE,
    });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };
  const expectForbidden = (reply: { status: number; body: { code?: string } }) => {
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe('forbidden');
  };

  it('names the creator and their role on each key, and what the key may do', async () => {
    const builderId = await userIdOf('builder@example.com');
    const key = await createKey(clients.builder, 'builder service');
    expect(key.created_by).toEqual({
      user_id: builderId,
      email: 'builder@example.com',
      role: 'builder',
    });
    expect(key.permissions).toEqual([]);
    const owners = await createKey(clients.owner, 'owner service');
    expect(owners.created_by?.role).toBe('owner');
    expect(owners.permissions).toEqual(ALL);
    // Keys of the operator tool (the seed's, as `awp key create` makes them): no creator.
    const seeded = await listedKey(ws.productionKeyId);
    expect(seeded?.created_by).toBeNull();
    expect(seeded?.permissions).toEqual(ALL);
    expect((await listedKey(key.id))?.created_by?.email).toBe('builder@example.com');
  });

  it('refuses a Builder’s key webhook endpoints and deleting Agents or recordings', async () => {
    const builder = await createKey(clients.builder, 'builder limits');
    expect((await builder.api('GET', '/v1/voices')).status).toBe(200);
    expectForbidden(await builder.api('GET', '/v1/webhooks'));
    expectForbidden(await builder.api('POST', '/v1/webhooks', WEBHOOK));
    const owner = await createKey(clients.owner, 'owner limits');
    const created = await owner.api('POST', '/v1/webhooks', WEBHOOK);
    expect(created.status).toBe(201);
    const webhookId = created.body.id as string;
    expectForbidden(
      await builder.api('PATCH', `/v1/webhooks/${webhookId}`, {
        url: 'https://evil.example.com/x',
      }),
    );
    expectForbidden(await builder.api('DELETE', `/v1/webhooks/${webhookId}`));
    expect((await owner.api('GET', `/v1/webhooks/${webhookId}`)).body.url).toBe(WEBHOOK.url);

    // The Builder's key builds Agents but does not delete them.
    const agentId = await createAgent(builder.api);
    expectForbidden(await builder.api('DELETE', `/v1/agents/${agentId}`));
    expect((await builder.api('GET', `/v1/agents/${agentId}`)).status).toBe(200);
    expectForbidden(
      await builder.api(
        'DELETE',
        '/v1/agent-sessions/00000000-0000-7000-8000-000000000000/recording',
      ),
    );
    // The Owner's key and the operator tool's may.
    expect((await owner.api('DELETE', `/v1/agents/${agentId}`)).status).toBe(204);
    const tool = apiClient(server.url, ws.productionKey);
    expect((await tool('DELETE', `/v1/agents/${await createAgent(tool)}`)).status).toBe(204);
    expect((await tool('GET', '/v1/webhooks')).status).toBe(200);
    const missing = await tool(
      'DELETE',
      '/v1/agent-sessions/00000000-0000-7000-8000-000000000000/recording',
    );
    expect(missing.status).toBe(404);
  });

  it('narrows an Admin’s keys when the Admin becomes a Builder', async () => {
    const key = await createKey(clients.admin, 'admin service');
    expect(key.permissions).toEqual(ALL);
    expect((await key.api('GET', '/v1/webhooks')).status).toBe(200);
    const adminId = await userIdOf('admin@example.com');
    const demoted = await clients.owner.request('PATCH', `/members/${adminId}`, {
      role: 'builder',
    });
    expect(demoted.status).toBe(200);
    // Key lookups are cached for at most a second.
    await waitFor(async () => (await key.api('GET', '/v1/webhooks')).status === 403, {
      what: 'the demoted Admin’s key to lose webhooks',
      timeoutMs: 3_000,
    });
    const listed = await listedKey(key.id);
    expect(listed?.created_by?.role).toBe('admin');
    expect(listed?.permissions).toEqual([]);
  });

  it('revokes the keys a member created when the member is removed, and says so', async () => {
    const builderId = await userIdOf('builder@example.com');
    const before = (
      (await clients.owner.request('GET', '/keys')).body as { keys: KeyView[] }
    ).keys.filter((key) => key.created_by?.user_id === builderId && key.status === 'active');
    expect(before.length).toBe(2);
    const survivor = await createKey(clients.owner, 'stays');
    const builderKey = await createKey(clients.builder, 'last builder key');
    expect((await builderKey.api('GET', '/v1/voices')).status).toBe(200);

    const removed = await clients.owner.request('DELETE', `/members/${builderId}`);
    expect(removed.status).toBe(200);
    const body = removed.body as { member: { email: string }; revoked_keys: KeyView[] };
    expect(body.member.email).toBe('builder@example.com');
    expect(body.revoked_keys.map((key) => key.id).sort()).toEqual(
      [...before.map((key) => key.id), builderKey.id].sort(),
    );
    expect(body.revoked_keys.every((key) => key.status === 'revoked')).toBe(true);
    // The api that revoked them refuses them at once.
    const refused = await builderKey.api('GET', '/v1/voices');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');
    expect((await listedKey(builderKey.id))?.status).toBe('revoked');
    expect((await survivor.api('GET', '/v1/voices')).status).toBe(200);
    expect((await listedKey(ws.productionKeyId))?.status).toBe('active');
  });

  it('keeps every permission on keys the operator tool creates', async () => {
    const created = await new ApiKeys(handle.db).create(ws.workspaceId, 'production', 'awp tool');
    expect(created.createdBy).toBeNull();
    const api = apiClient(server.url, created.key);
    expect((await api('GET', '/v1/webhooks')).status).toBe(200);
  });
});
