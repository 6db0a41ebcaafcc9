import {
  beforeAll,
  describe,
  describeEachDialect,
  dialectSuite,
  expect,
  it,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type RunningServer, serviceEnv } from '../../helpers/server.ts';
import { runAwp } from '../../helpers/upstream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

describeEachDialect('operator tool on %s', (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;

  // One process per command, as an operator runs it.
  const awp = (...args: string[]) => runAwp(serviceEnv(database), args);
  const awpJson = (...args: string[]) => {
    const result = awp(...args, '--json');
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    return { status: result.status, body: JSON.parse(result.stdout) as Record<string, unknown> };
  };

  beforeAll(
    async ({ databases, apis }) => {
      database = await databases.empty(dialect);
      server = await apis.start(database);
    },
    budget({ servers: 1 }),
  );

  it(
    'bootstraps a workspace that a running service accepts, then revokes its key',
    async () => {
      const created = awpJson('workspace', 'create', '--name', 'Acme');
      expect(created.status).toBe(0);
      const id = created.body.id as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);

      const key = awpJson(
        'key',
        'create',
        '--workspace',
        id,
        '--environment',
        'production',
        '--label',
        'backend',
      );
      expect(key.body).toMatchObject({
        id: expect.stringMatching(/^key_/),
        key: expect.stringMatching(/^awp_[0-9A-Za-z]{40}$/),
      });
      const secret = key.body.key as string;
      const voices = () =>
        fetch(`${server.url}/v1/voices`, { headers: { authorization: `Bearer ${secret}` } });
      /** What the running service answers once the change reached it (its cache expired). */
      const serviceAnswers = (status: number, code?: string) =>
        waitFor(
          async () => {
            const response = await voices();
            const body = (await response.json()) as { code?: string };
            return response.status === status && body.code === code;
          },
          { what: `the service to answer ${status} ${code ?? ''}`, intervalMs: 100 },
        );

      expect((await voices()).status).toBe(503); // billing not provisioned yet
      expect(awpJson('billing', 'provision', '--workspace', id).status).toBe(0);
      await serviceAnswers(403, 'capability_disabled');
      const enabled = awpJson('capability', 'enable', '--workspace', id, '--capability', 'tts');
      expect(enabled.body).toMatchObject({ workspace: { capabilities: ['tts'] } });
      await serviceAnswers(200);

      expect(awpJson('credit', 'set', '--workspace', id, '--credits', '2500').body).toMatchObject({
        workspace: { credits: 2500 },
      });
      expect(
        awpJson('member', 'add', '--workspace', id, '--email', 'Ops@Acme.test', '--role', 'admin')
          .body,
      ).toMatchObject({ member: { email: 'ops@acme.test', role: 'admin' } });

      const listed = awpJson('key', 'list', '--workspace', id).body as {
        keys: Record<string, unknown>[];
      };
      expect(listed.keys).toHaveLength(1);
      expect(listed.keys[0]).toMatchObject({
        id: key.body.id,
        prefix: secret.slice(0, 12),
        status: 'active',
      });
      expect(JSON.stringify(listed)).not.toContain(secret);

      expect(awpJson('workspace', 'suspend', '--workspace', id).body).toMatchObject({
        workspace: { status: 'suspended' },
      });
      await serviceAnswers(403, 'organization_suspended');
      awpJson('workspace', 'resume', '--workspace', id);

      const revoked = awpJson('key', 'revoke', '--workspace', id, '--key', key.body.id as string);
      expect(revoked.body).toMatchObject({
        key: { status: 'revoked', revokedAt: expect.any(String) },
      });
      await serviceAnswers(401, 'unauthorized');
    },
    budget({ awpRuns: 10 }),
  );

  it('grants credit and shows balance, reserved, charged and the grants', {
    timeout: budget({ awpRuns: 7 }),
  }, () => {
    const id = awpJson('workspace', 'create', '--name', 'Credit', '--credits', '2500').body
      .id as string;
    expect(
      awpJson('credit', 'add', '--workspace', id, '--credits', '500', '--note', 'invoice 7').body,
    ).toMatchObject({ credit: { balanceCredits: 3000, grantedCredits: 3000 } });
    const shown = awpJson('credit', 'show', '--workspace', id).body as {
      credit: { grants: { credits: number; reason: string; note: string | null }[] };
    };
    expect(shown.credit).toMatchObject({ balanceCredits: 3000, reservedCredits: 0 });
    expect(shown.credit.grants).toMatchObject([
      { credits: 500, reason: 'added', note: 'invoice 7' },
      { credits: 2500, reason: 'workspace_created', note: null },
    ]);
    expect(awp('credit', 'show', '--workspace', id).stdout).toContain('granted   3000 credits');
    // Set grants the difference; the history keeps both.
    expect(awpJson('credit', 'set', '--workspace', id, '--credits', '1000').body).toMatchObject({
      workspace: { credits: 1000 },
    });
    const after = awpJson('credit', 'show', '--workspace', id).body as {
      credit: { grantedCredits: number; grants: { credits: number; reason: string }[] };
    };
    expect(after.credit.grantedCredits).toBe(1000);
    expect(after.credit.grants[0]).toMatchObject({ credits: -2000, reason: 'set' });
  });

  it(
    'prints a JSON error and exits non-zero on a bad request',
    () => {
      const result = awp('key', 'revoke', '--workspace', 'nope', '--key', 'key_x', '--json');
      expect(result.status).toBe(1);
      expect(JSON.parse(result.stdout)).toEqual({
        error: { code: 'not_found', detail: expect.any(String) },
      });
    },
    budget({ awpRuns: 1 }),
  );
});

describe('operator tool usage', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  const awp = (...args: string[]) => runAwp(serviceEnv(database), args);
  beforeAll(async ({ databases }) => {
    database = await databases.empty('sqlite');
  });

  const commands: string[][] = [
    [],
    ['workspace', 'create'],
    ['workspace', 'suspend'],
    ['workspace', 'resume'],
    ['billing', 'provision'],
    ['credit', 'set'],
    ['credit', 'add'],
    ['credit', 'show'],
    ['capability', 'enable'],
    ['capability', 'disable'],
    ['member', 'add'],
    ['key', 'create'],
    ['key', 'list'],
    ['key', 'revoke'],
  ];

  it(
    'has --help on every command',
    () => {
      for (const command of commands) {
        const result = awp(...command, '--help');
        expect(result.status, command.join(' ')).toBe(0);
        expect(result.stdout).toContain('Usage: awp');
      }
    },
    budget({ awpRuns: commands.length }),
  );

  it(
    'refuses an unknown capability or role',
    () => {
      expect(
        awp('capability', 'enable', '--workspace', 'x', '--capability', 'mining').status,
      ).not.toBe(0);
      expect(
        awp('member', 'add', '--workspace', 'x', '--email', 'a@b.c', '--role', 'king').status,
      ).not.toBe(0);
    },
    budget({ awpRuns: 2 }),
  );
});
