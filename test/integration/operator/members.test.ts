// The operator API's members routes (the dashboard's Members page) against a real api on
// both databases: who may add, change, remove and reset whom, the one-time generated
// password, the last Owner, and sessions that end with a removal or a reset.

import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { Members } from '../../../src/workspaces/members.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
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
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({}) });

const GENERATED = /^[A-Za-z0-9_-]{24}$/;

describeEachDialect('operator API members on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let otherWorkspaceId: string;
  const clients: Record<'owner' | 'admin' | 'builder' | 'member', OperatorClient> = {} as never;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      for (const role of ['owner', 'admin', 'builder', 'member'] as const) {
        await addOperator(handle.db, ws, { role });
      }
      const other = await new Workspaces(handle.db).create({
        name: 'Other workspace',
        capabilities: ['tts'],
        billingProvisioned: true,
        credits: 0,
      });
      otherWorkspaceId = other.id;
      await addOperator(
        handle.db,
        { workspaceId: otherWorkspaceId },
        { email: 'elsewhere@example.com' },
      );
      server = await apis.start(database);
      for (const role of ['owner', 'admin', 'builder', 'member'] as const) {
        clients[role] = await signInAs(server.url, `${role}@example.com`);
      }
    },
    budget({ servers: 1 }),
  );

  const listed = async (client: OperatorClient = clients.owner) => {
    const response = await client.request('GET', '/members');
    expect(response.status).toBe(200);
    return (response.body as { members: { email: string; role: string; user_id: string }[] })
      .members;
  };
  const userIdOf = async (email: string) => {
    const found = (await listed()).find((member) => member.email === email);
    if (!found) throw new Error(`${email} is not listed`);
    return found.user_id;
  };

  it('lists the members to every role, in the order they were added', async () => {
    for (const role of ['owner', 'admin', 'builder', 'member'] as const) {
      const response = await clients[role].request('GET', '/members');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        members: ['owner', 'admin', 'builder', 'member'].map((r) => ({
          user_id: expect.any(String),
          email: `${r}@example.com`,
          role: r,
          added_at: expect.any(String),
          can_sign_in: true,
        })),
      });
    }
  });

  it('adds a new user with a generated password shown once, which signs in', async () => {
    const response = await clients.owner.request('POST', '/members', {
      email: ' New.Admin@Example.com ',
      role: 'admin',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = response.body as { member: Record<string, unknown>; password: string };
    expect(body.member).toEqual({
      user_id: expect.any(String),
      email: 'new.admin@example.com',
      role: 'admin',
      added_at: expect.any(String),
      can_sign_in: true,
    });
    expect(body.password).toMatch(GENERATED);
    const user = await handle.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', 'new.admin@example.com')
      .executeTakeFirstOrThrow();
    expect(user.password_hash).not.toContain(body.password);
    const client = await signInAs(server.url, 'new.admin@example.com', body.password);
    const me = await client.request('GET', '/me');
    expect(me.body).toMatchObject({ member: { role: 'admin', workspace_id: ws.workspaceId } });
    // Listed once, and adding them again is refused: roles change with PATCH.
    expect((await listed()).filter((m) => m.email === 'new.admin@example.com')).toHaveLength(1);
    const again = await clients.owner.request('POST', '/members', {
      email: 'new.admin@example.com',
      role: 'member',
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict', retryable: false });
    expect((await listed()).find((m) => m.email === 'new.admin@example.com')?.role).toBe('admin');
  });

  it('refuses a member of another workspace, whose password it must neither set nor learn', async () => {
    const response = await clients.owner.request('POST', '/members', {
      email: 'elsewhere@example.com',
      role: 'member',
    });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'conflict' });
    expect((response.body as { detail: string }).detail).toContain('awp member add');
    expect((await listed()).map((m) => m.email)).not.toContain('elsewhere@example.com');
    // Their own password still signs them in to their workspace.
    const signIn = await new OperatorClient(server.url).signIn(
      'elsewhere@example.com',
      OPERATOR_PASSWORD,
    );
    expect(signIn.status).toBe(200);
    expect(signIn.body).toMatchObject({ member: { workspace_id: otherWorkspaceId } });
  });

  it('gives a user of no workspace a fresh password, and the old one stops working', async () => {
    // Someone once removed from every workspace, with a password set back then.
    await addOperator(
      handle.db,
      { workspaceId: otherWorkspaceId },
      { email: 'returning@example.com', role: 'member' },
    );
    await handle.db
      .deleteFrom('memberships')
      .where('workspace_id', '=', otherWorkspaceId)
      .where(
        'user_id',
        '=',
        (
          await handle.db
            .selectFrom('users')
            .select('id')
            .where('email', '=', 'returning@example.com')
            .executeTakeFirstOrThrow()
        ).id,
      )
      .execute();
    const response = await clients.owner.request('POST', '/members', {
      email: 'returning@example.com',
      role: 'builder',
    });
    expect(response.status).toBe(201);
    const password = (response.body as { password: string }).password;
    expect(password).toMatch(GENERATED);
    expect(
      (await new OperatorClient(server.url).signIn('returning@example.com', OPERATOR_PASSWORD))
        .status,
    ).toBe(401);
    await signInAs(server.url, 'returning@example.com', password);
  });

  it('lets an Admin manage Builders and Members only, and nobody below Admin manage anyone', async () => {
    for (const role of ['owner', 'admin'] as const) {
      const response = await clients.admin.request('POST', '/members', {
        email: `by-admin-${role}@example.com`,
        role,
      });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'forbidden', retryable: false });
    }
    const added = await clients.admin.request('POST', '/members', {
      email: 'by-admin@example.com',
      role: 'builder',
    });
    expect(added.status).toBe(201);
    const ownerId = await userIdOf('owner@example.com');
    for (const [method, path, body] of [
      ['PATCH', `/members/${ownerId}`, { role: 'member' }],
      ['DELETE', `/members/${ownerId}`, undefined],
      ['POST', `/members/${ownerId}/password`, undefined],
      ['PATCH', `/members/${await userIdOf('by-admin@example.com')}`, { role: 'admin' }],
    ] as const) {
      const response = await clients.admin.request(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(403);
    }
    for (const role of ['builder', 'member'] as const) {
      const response = await clients[role].request('POST', '/members', {
        email: `by-${role}@example.com`,
        role: 'member',
      });
      expect(response.status).toBe(403);
    }
    const emails = (await listed()).map((m) => m.email);
    expect(emails).not.toContain('by-admin-owner@example.com');
    expect(emails).not.toContain('by-builder@example.com');
    expect((await listed()).find((m) => m.email === 'owner@example.com')?.role).toBe('owner');
  });

  it('changes a role, which applies to the member’s session at once', async () => {
    const target = await addAndSignIn('promoted@example.com', 'member');
    const response = await clients.owner.request('PATCH', `/members/${target.userId}`, {
      role: 'builder',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      member: { email: 'promoted@example.com', role: 'builder' },
    });
    const me = await target.client.request('GET', '/me');
    expect(me.body).toMatchObject({ member: { role: 'builder' } });
    const bad = await clients.owner.request('PATCH', `/members/${target.userId}`, { role: 'boss' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request' });
    const unknown = await clients.owner.request('PATCH', '/members/no-such-user', {
      role: 'member',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'not_found' });
  });

  it('keeps the last Owner: not demoted, not removed, until another Owner exists', async () => {
    const ownerId = await userIdOf('owner@example.com');
    const demote = await clients.owner.request('PATCH', `/members/${ownerId}`, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.body).toMatchObject({ code: 'conflict' });
    const remove = await clients.owner.request('DELETE', `/members/${ownerId}`);
    expect(remove.status).toBe(409);
    expect((await listed()).filter((m) => m.role === 'owner').map((m) => m.email)).toEqual([
      'owner@example.com',
    ]);

    const second = await addAndSignIn('second-owner@example.com', 'owner');
    const demoted = await clients.owner.request('PATCH', `/members/${second.userId}`, {
      role: 'admin',
    });
    expect(demoted.status).toBe(200);
    expect((await listed()).filter((m) => m.role === 'owner').map((m) => m.email)).toEqual([
      'owner@example.com',
    ]);
  });

  it('removes a member: their session ends at once and their other workspaces stay', async () => {
    const target = await addAndSignIn('leaving@example.com', 'builder');
    expect((await target.client.request('GET', '/me')).status).toBe(200);
    const response = await clients.owner.request('DELETE', `/members/${target.userId}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      member: { email: 'leaving@example.com', role: 'builder' },
    });
    expect((await target.client.request('GET', '/me')).status).toBe(401);
    expect((await listed()).map((m) => m.email)).not.toContain('leaving@example.com');
    const sessions = await handle.db
      .selectFrom('operator_sessions')
      .select('user_id')
      .where('user_id', '=', target.userId)
      .execute();
    expect(sessions).toEqual([]);
    expect((await clients.owner.request('DELETE', `/members/${target.userId}`)).status).toBe(404);

    // A member of two workspaces (joined with the operator tool), removed from one, still
    // signs in to the other.
    await new Members(handle.db).add(ws.workspaceId, 'elsewhere@example.com', 'member');
    const elsewhereId = await userIdOf('elsewhere@example.com');
    expect((await clients.owner.request('DELETE', `/members/${elsewhereId}`)).status).toBe(200);
    const other = new OperatorClient(server.url);
    const signIn = await other.signIn('elsewhere@example.com', OPERATOR_PASSWORD);
    expect(signIn.status).toBe(200);
    expect(signIn.body).toMatchObject({ member: { workspace_id: otherWorkspaceId } });
  });

  it('resets a password: the new one signs in, the old one and old sessions do not', async () => {
    const target = await addAndSignIn('forgetful@example.com', 'member');
    const response = await clients.admin.request('POST', `/members/${target.userId}/password`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const password = (response.body as { password: string }).password;
    expect(password).toMatch(GENERATED);
    expect(password).not.toBe(target.password);
    expect((await target.client.request('GET', '/me')).status).toBe(401);
    expect(
      (await new OperatorClient(server.url).signIn('forgetful@example.com', target.password))
        .status,
    ).toBe(401);
    await signInAs(server.url, 'forgetful@example.com', password);

    // Not one's own, and not for a member of other workspaces (the password is theirs too).
    const self = await clients.owner.request(
      'POST',
      `/members/${await userIdOf('owner@example.com')}/password`,
    );
    expect(self.status).toBe(403);
    await new Members(handle.db).add(otherWorkspaceId, 'forgetful@example.com', 'member');
    const shared = await clients.owner.request('POST', `/members/${target.userId}/password`);
    expect(shared.status).toBe(409);
    expect(shared.body).toMatchObject({ code: 'conflict' });
    const still = await new OperatorClient(server.url).signIn(
      'forgetful@example.com',
      password,
      ws.workspaceId,
    );
    expect(still.status).toBe(200);
  });

  it('lets a member change their own password: the session in use stays, the others end', async () => {
    const target = await addAndSignIn('changer@example.com', 'member');
    const other = await signInAs(server.url, 'changer@example.com', target.password);
    const change = (current: string, next: string) =>
      target.client.request('POST', '/me/password', {
        current_password: current,
        new_password: next,
      });
    const wrong = await change('not the password', 'a brand new passphrase');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'invalid_request' });
    const short = await change(target.password, 'too short');
    expect(short.status).toBe(400);
    expect((await change(target.password, 'a brand new passphrase')).status).toBe(204);
    expect((await target.client.request('GET', '/me')).status).toBe(200);
    expect((await other.request('GET', '/me')).status).toBe(401);
    expect(
      (await new OperatorClient(server.url).signIn('changer@example.com', target.password)).status,
    ).toBe(401);
    await signInAs(server.url, 'changer@example.com', 'a brand new passphrase');
    expect(
      (
        await new OperatorClient(server.url).request('POST', '/me/password', {
          current_password: 'a brand new passphrase',
          new_password: 'another new passphrase',
        })
      ).status,
    ).toBe(401);
  });

  it('refuses every members route without a session', async () => {
    const anonymous = new OperatorClient(server.url);
    for (const [method, path] of [
      ['GET', '/members'],
      ['POST', '/members'],
      ['PATCH', '/members/x'],
      ['DELETE', '/members/x'],
      ['POST', '/members/x/password'],
    ] as const) {
      const response = await anonymous.request(method, path, method === 'GET' ? undefined : {});
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });

  /** Adds `email` as `role` through the API and signs them in with the generated password. */
  async function addAndSignIn(email: string, role: 'owner' | 'admin' | 'builder' | 'member') {
    const response = await clients.owner.request('POST', '/members', { email, role });
    expect(response.status).toBe(201);
    const body = response.body as { member: { user_id: string }; password: string };
    return {
      userId: body.member.user_id,
      password: body.password,
      client: await signInAs(server.url, email, body.password),
    };
  }
});
