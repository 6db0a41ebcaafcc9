import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  addOperator,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  OPERATOR_PASSWORD,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { runAwpAsync } from '../../helpers/upstream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ awpRuns: 1 }) });

const ATTEMPTS_PER_MINUTE = 4;

describeEachDialect('operator API sign-in, sessions and roles on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  const clients: Record<'owner' | 'admin' | 'builder' | 'member', OperatorClient> = {} as never;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      for (const role of ['owner', 'admin', 'builder', 'member'] as const) {
        await addOperator(handle.db, ws, { role });
      }
      server = await apis.start(database, {
        env: { OPERATOR_SIGNIN_ATTEMPTS_PER_MINUTE: String(ATTEMPTS_PER_MINUTE) },
      });
      for (const role of ['owner', 'admin', 'builder', 'member'] as const) {
        clients[role] = await signInAs(server.url, `${role}@example.com`);
      }
    },
    budget({ servers: 1 }),
  );

  it('signs in with a secure session cookie whose id is stored only as a hash', async () => {
    const client = new OperatorClient(server.url);
    const response = await client.signIn('Admin@Example.com', OPERATOR_PASSWORD);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      member: {
        user_id: expect.any(String),
        email: 'admin@example.com',
        workspace_id: ws.workspaceId,
        role: 'admin',
        session_expires_at: expect.any(String),
      },
    });
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^awp_operator_session=[A-Za-z0-9_-]{43}; Path=\/operator; Expires=/);
    expect(cookie).toContain('; HttpOnly');
    expect(cookie).toContain('; SameSite=Strict');
    // 127.0.0.1 is loopback: browsers accept the cookie over plain HTTP there only without Secure.
    expect(cookie).not.toContain('Secure');
    const sessionId = client.cookie!.split('=')[1]!;
    const rows = await handle.db.selectFrom('operator_sessions').select('id_hash').execute();
    expect(rows.map((row) => row.id_hash)).not.toContain(sessionId);
    expect(JSON.stringify(rows)).not.toContain(sessionId);

    const me = await client.request('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      member: { role: 'admin' },
      environment: 'production',
      demo_page: false,
    });
    // The development address says the same, without DEMO_PAGE: no demo page to link to.
    const development = await signInAs(server.devUrl, 'admin@example.com');
    expect((await development.request('GET', '/me')).body).toMatchObject({
      environment: 'development',
      demo_page: false,
    });
  });

  it('refuses a wrong password or an unknown email alike, and no request without a session', async () => {
    const client = new OperatorClient(server.url);
    for (const [email, password] of [
      ['builder@example.com', 'wrong password here'],
      ['nobody@example.com', OPERATOR_PASSWORD],
    ]) {
      const response = await client.signIn(email!, password!);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 'unauthorized', retryable: false });
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    const me = await client.request('GET', '/me');
    expect(me.status).toBe(401);
    const forged = new OperatorClient(server.url);
    forged.cookie = 'awp_operator_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect((await forged.request('GET', '/me')).status).toBe(401);
  });

  it('limits sign-in attempts per email, then refuses even the right password', async () => {
    const email = 'limited@example.com';
    await addOperator(handle.db, ws, { email, role: 'member' });
    const client = new OperatorClient(server.url);
    for (let attempt = 0; attempt < ATTEMPTS_PER_MINUTE; attempt += 1) {
      expect((await client.signIn(email, 'not the password!')).status).toBe(401);
    }
    const limited = await client.signIn(email, OPERATOR_PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('set-cookie')).toBeNull();
  });

  it('refuses state-changing requests from another origin or without one (CSRF)', async () => {
    const owner = clients.owner;
    const evil = new OperatorClient(server.url, 'https://evil.example');
    evil.cookie = owner.cookie;
    const crossSite = await evil.request('POST', '/keys', { label: 'stolen' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).toMatchObject({ code: 'forbidden' });

    const noOrigin = new OperatorClient(server.url, null);
    noOrigin.cookie = owner.cookie;
    expect((await noOrigin.request('POST', '/keys', { label: 'x' })).status).toBe(403);
    // A same-origin fetch that carries no Origin header says so in Sec-Fetch-Site.
    const sameOrigin = await noOrigin.request(
      'POST',
      '/keys',
      { label: 'same origin' },
      { 'sec-fetch-site': 'same-origin' },
    );
    expect(sameOrigin.status).toBe(201);
    // Reads stay possible (the cookie is SameSite=Strict; nothing changes on a GET).
    expect((await evil.request('GET', '/me')).status).toBe(200);
    // Login CSRF: a sign-in posted from another site is refused before the password check.
    const crossSignIn = await new OperatorClient(server.url, 'https://evil.example').signIn(
      'owner@example.com',
      OPERATOR_PASSWORD,
    );
    expect(crossSignIn.status).toBe(403);
    const keys = (await owner.request('GET', '/keys')).body as { keys: { label: string }[] };
    expect(keys.keys.map((key) => key.label)).not.toContain('stolen');
  });

  it('asks a member of several workspaces which one, and refuses a workspace they are not in', async () => {
    const other = await seedWorkspace(handle);
    await addOperator(handle.db, ws, { email: 'two@example.com', role: 'member' });
    await addOperator(handle.db, other, { email: 'two@example.com', role: 'admin' });
    const client = new OperatorClient(server.url);
    const ambiguous = await client.signIn('two@example.com', OPERATOR_PASSWORD);
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body).toMatchObject({ code: 'invalid_request' });
    expect((ambiguous.body as { detail: string }).detail).toContain(other.workspaceId);
    const chosen = await client.signIn('two@example.com', OPERATOR_PASSWORD, other.workspaceId);
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({
      member: { workspace_id: other.workspaceId, role: 'admin' },
    });
    // The session acts in the chosen workspace only.
    const keys = (await client.request('GET', '/keys')).body as { keys: { id: string }[] };
    expect(keys.keys.map((key) => key.id)).toContain(other.productionKeyId);
    expect(keys.keys.map((key) => key.id)).not.toContain(ws.productionKeyId);
    const stranger = await new OperatorClient(server.url).signIn(
      'builder@example.com',
      OPERATOR_PASSWORD,
      other.workspaceId,
    );
    expect(stranger.status).toBe(403);
    expect(stranger.body).toMatchObject({ code: 'forbidden' });
  });

  it('signs out: the cookie is cleared and the old session no longer works', async () => {
    const client = await signInAs(server.url, 'builder@example.com');
    const oldCookie = client.cookie;
    const out = await client.request('POST', '/sign-out');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(
      /^awp_operator_session=; Path=\/operator; Max-Age=0/,
    );
    expect(client.cookie).toBeUndefined();
    const replay = new OperatorClient(server.url);
    replay.cookie = oldCookie;
    expect((await replay.request('GET', '/me')).status).toBe(401);
  });

  it('enforces roles on each route group', async () => {
    const expectations: [string, string, unknown, Record<string, number>][] = [
      ['GET', '/keys', undefined, { owner: 200, admin: 200, builder: 200, member: 403 }],
      ['POST', '/keys', { label: 'ci' }, { owner: 201, admin: 201, builder: 201, member: 403 }],
      ['GET', '/voices', undefined, { owner: 200, admin: 200, builder: 200, member: 200 }],
      [
        'GET',
        '/provider-accounts',
        undefined,
        { owner: 200, admin: 200, builder: 403, member: 403 },
      ],
      [
        'POST',
        '/provider-accounts',
        { provider: 'fishaudio', label: 'x', api_key: 'fish-key-0123456789' },
        { owner: 201, admin: 201, builder: 403, member: 403 },
      ],
      [
        'PUT',
        '/voices/voice_missing/default-route',
        { route_id: 'vr_x' },
        { owner: 404, admin: 404, builder: 403, member: 403 },
      ],
      [
        'PATCH',
        '/voices/voice_missing/routes/vr_x',
        { enabled: false },
        { owner: 404, admin: 404, builder: 403, member: 403 },
      ],
      ['POST', '/voices/import', {}, { owner: 400, admin: 400, builder: 403, member: 403 }],
      [
        'GET',
        '/provider-accounts/pa_missing/catalog?source=own',
        undefined,
        { owner: 404, admin: 404, builder: 403, member: 403 },
      ],
    ];
    for (const [method, path, body, byRole] of expectations) {
      for (const [role, status] of Object.entries(byRole)) {
        const response = await clients[role as keyof typeof clients].request(method, path, body);
        expect({ method, path, role, status: response.status }).toEqual({
          method,
          path,
          role,
          status,
        });
        if (status === 403) expect(response.body).toMatchObject({ code: 'forbidden' });
      }
    }
  });

  it('creates a key shown once, lists it without the secret, and revokes it', async () => {
    const created = await clients.builder.request('POST', '/keys', {
      label: 'backend',
      environment: 'development',
    });
    expect(created.status).toBe(201);
    const key = (created.body as { key: { id: string; secret: string; environment: string } }).key;
    expect(key.secret).toMatch(/^awp_/);
    expect(key.environment).toBe('development');
    const voices = await fetch(`${server.devUrl}/v1/voices`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(voices.status).toBe(200);

    const list = await clients.admin.request('GET', '/keys');
    expect(JSON.stringify(list.body)).not.toContain(key.secret);
    expect((list.body as { keys: { id: string; status: string }[] }).keys).toContainEqual(
      expect.objectContaining({ id: key.id, status: 'active', label: 'backend' }),
    );
    const revoked = await clients.owner.request('POST', `/keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ key: { id: key.id, status: 'revoked' } });
    await waitFor(
      async () => {
        const after = await fetch(`${server.devUrl}/v1/voices`, {
          headers: { authorization: `Bearer ${key.secret}` },
        });
        return after.status === 401 ? true : undefined;
      },
      { what: 'the revoked key to be refused' },
    );
    expect((await clients.owner.request('POST', '/keys/key_unknown/revoke')).status).toBe(404);
  });

  it('stores provider accounts sealed and never echoes the key', async () => {
    const apiKey = 'sk_elevenlabs_secret_ABCD';
    const added = await clients.admin.request('POST', '/provider-accounts', {
      provider: 'elevenlabs',
      label: 'Main',
      api_key: apiKey,
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      provider_account: {
        id: expect.stringMatching(/^pa_/),
        provider: 'elevenlabs',
        label: 'Main',
        key_last4: 'ABCD',
        created_at: expect.any(String),
      },
    });
    const list = await clients.owner.request('GET', '/provider-accounts');
    expect(JSON.stringify(list.body)).not.toContain(apiKey);
    const stored = await handle.db.selectFrom('provider_accounts').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    const id = (added.body as { provider_account: { id: string } }).provider_account.id;
    expect((await clients.owner.request('DELETE', `/provider-accounts/${id}`)).status).toBe(204);
    expect((await clients.owner.request('DELETE', `/provider-accounts/${id}`)).status).toBe(404);
    expect(server.output()).not.toContain(apiKey);
  });

  it('sets a password with the operator tool, ending the old sessions', async () => {
    const member = clients.member;
    const newPassword = 'a new and longer passphrase';
    const result = await runAwpAsync(
      server.env,
      ['member', 'set-password', '--email', 'member@example.com', '--json'],
      `${newPassword}\n`,
    );
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      user_id: expect.any(String),
      email: 'member@example.com',
    });
    expect((await member.request('GET', '/me')).status).toBe(401);
    expect(
      (await new OperatorClient(server.url).signIn('member@example.com', OPERATOR_PASSWORD)).status,
    ).toBe(401);
    const fresh = await signInAs(server.url, 'member@example.com', newPassword);
    expect((await fresh.request('GET', '/me')).status).toBe(200);
    clients.member = fresh;

    const short = await runAwpAsync(
      server.env,
      ['member', 'set-password', '--email', 'member@example.com'],
      'short\n',
    );
    expect(short.status).not.toBe(0);
    expect(short.stdout + short.stderr).toContain('12 to 256 characters');
  });

  it('keeps the operator API out of the public OpenAPI document', async () => {
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/operator'))).toEqual([]);
  });
});
