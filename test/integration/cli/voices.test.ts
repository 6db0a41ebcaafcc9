import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { StoredVoice } from '../../../src/voices/voice-store.ts';
import { beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { serviceEnv } from '../../helpers/server.ts';
import { addProviderAccount, runAwp } from '../../helpers/upstream.ts';
import { budget } from '../../helpers/wait.ts';

/** The JSON shapes the commands under test print. */
interface CliBody {
  id: string;
  voice: StoredVoice;
  voices: StoredVoice[];
  error: { code: string; detail: string };
}

const KEY = 'sk_test_9f8e7d6c5b4a39281706fedcba';

// One operator-tool process per command, as an operator runs it; the longest test here
// runs seven.
vi.setConfig({ testTimeout: budget({ awpRuns: 7 }) });

describeEachDialect('voice import and provider accounts on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let env: Record<string, string>;

  const awpJson = (args: string[], input?: string) => {
    const result = runAwp(env, [...args, '--json'], input);
    expect(result.stderr).toBe('');
    return { status: result.status, body: JSON.parse(result.stdout) as CliBody };
  };
  const importArgs = (overrides: Record<string, string> = {}) => {
    const args: Record<string, string> = {
      '--workspace': ws.workspaceId,
      '--environment': 'production',
      '--provider': 'elevenlabs',
      '--provider-voice-id': 'JBFqnCBsd6RMkjVDRZzb',
      '--model': 'eleven_v3',
      '--name': 'George',
      ...overrides,
    };
    return ['voice', 'import', ...Object.entries(args).flat()];
  };

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    env = serviceEnv(database);
  });

  it('imports a voice with one Ready default route', () => {
    const { status, body } = awpJson([...importArgs(), '--nsfw']);
    expect(status).toBe(0);
    expect(body.id).toMatch(/^voice_[0-9A-Za-z]{20}$/);
    expect(body.voice).toMatchObject({
      id: body.id,
      name: 'George',
      nsfw: true,
      environment: 'production',
      routes: [
        {
          provider: 'elevenlabs',
          model: 'eleven_v3',
          providerVoiceId: 'JBFqnCBsd6RMkjVDRZzb',
          providerAccountId: null,
          state: 'ready',
          enabled: true,
        },
      ],
    });
    expect(body.voice.defaultRouteId).toBe(body.voice.routes[0]?.id);

    const listed = awpJson([
      'voice',
      'list',
      '--workspace',
      ws.workspaceId,
      '--environment',
      'production',
    ]);
    expect(listed.body.voices.map((v) => v.id)).toContain(body.id);
    const other = awpJson([
      'voice',
      'list',
      '--workspace',
      ws.workspaceId,
      '--environment',
      'development',
    ]);
    expect(other.body.voices).toEqual([]);
  });

  it.each([
    [{ '--model': 'eleven_turbo_v9' }, /model/],
    [{ '--provider': 'fishaudio', '--model': 'eleven_v3' }, /model/],
    [{ '--provider-voice-id': '../../v1/voices' }, /provider voice id/],
    [{ '--provider-voice-id': 'x'.repeat(65) }, /provider voice id/],
    [{ '--name': '   ' }, /name/],
    [{ '--workspace': '00000000-0000-7000-8000-000000000000' }, /workspace/],
    [{ '--provider-account': 'pa_unknown' }, /provider account/],
  ])('refuses %j', (overrides, detail) => {
    const { status, body } = awpJson(importArgs(overrides));
    expect(status).toBe(1);
    expect(['invalid_request', 'not_found']).toContain(body.error.code);
    expect(body.error.detail).toMatch(detail);
  });

  it('refuses an unknown provider before touching the database', () => {
    const result = runAwp(env, importArgs({ '--provider': 'acme' }));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/acme/);
  });

  it('stores provider keys sealed and never prints them', async () => {
    const id = addProviderAccount(env, {
      workspaceId: ws.workspaceId,
      provider: 'fishaudio',
      label: 'Studio account',
      apiKey: KEY,
    });
    expect(id).toMatch(/^pa_/);
    const row = await handle.db
      .selectFrom('provider_accounts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.api_key_ciphertext).not.toContain(KEY);
    expect(row.api_key_ciphertext).not.toContain(KEY.slice(0, 12));
    expect(row.api_key_last4).toBe(KEY.slice(-4));

    const listed = runAwp(env, [
      'provider-account',
      'list',
      '--workspace',
      ws.workspaceId,
      '--json',
    ]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).not.toContain(KEY.slice(0, 12));
    expect(JSON.parse(listed.stdout).accounts).toEqual([
      expect.objectContaining({
        id,
        provider: 'fishaudio',
        label: 'Studio account',
        keyLast4: KEY.slice(-4),
      }),
    ]);
    const text = runAwp(env, ['provider-account', 'list', '--workspace', ws.workspaceId]);
    expect(text.stdout).toContain(id);
    expect(text.stdout).not.toContain(KEY.slice(0, 12));
  });

  it('reads the key from a named environment variable, never from an argument', () => {
    const result = runAwp({ ...env, STUDIO_KEY: KEY }, [
      'provider-account',
      'add',
      '--workspace',
      ws.workspaceId,
      '--provider',
      'elevenlabs',
      '--label',
      'From env',
      '--api-key-env',
      'STUDIO_KEY',
      '--json',
    ]);
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain(KEY.slice(0, 12));
    const refused = runAwp(env, [
      'provider-account',
      'add',
      '--workspace',
      ws.workspaceId,
      '--provider',
      'elevenlabs',
      '--label',
      'x',
      '--api-key',
      KEY,
    ]);
    expect(refused.status).not.toBe(0);
    const empty = awpJson(
      [
        'provider-account',
        'add',
        '--workspace',
        ws.workspaceId,
        '--provider',
        'elevenlabs',
        '--label',
        'x',
      ],
      'short\n',
    );
    expect(empty.status).toBe(1);
    expect(empty.body.error.code).toBe('invalid_request');
    expect(JSON.stringify(empty.body)).not.toContain('short');
  });

  it('uses the only account of a vendor, asks to name one of several, and keeps used accounts', () => {
    // The workspace now has one Fish Audio account and one ElevenLabs account.
    const fish = awpJson(
      importArgs({
        '--provider': 'fishaudio',
        '--model': 's2-pro',
        '--provider-voice-id': '802e3bc2b27e49c2995d23ef70e6ac89',
      }),
    );
    expect(fish.status).toBe(0);
    const fishAccount = fish.body.voice.routes[0]?.providerAccountId ?? '';
    expect(fishAccount).toMatch(/^pa_/);

    const second = addProviderAccount(env, {
      workspaceId: ws.workspaceId,
      provider: 'fishaudio',
      label: 'Second',
      apiKey: `${KEY}2`,
    });
    const ambiguous = awpJson(importArgs({ '--provider': 'fishaudio', '--model': 's2-pro' }));
    expect(ambiguous.status).toBe(1);
    expect(ambiguous.body.error.detail).toMatch(/name one/);
    const named = awpJson(
      importArgs({ '--provider': 'fishaudio', '--model': 's2-pro', '--provider-account': second }),
    );
    expect(named.body.voice.routes[0]?.providerAccountId).toBe(second);

    const inUse = awpJson([
      'provider-account',
      'remove',
      '--workspace',
      ws.workspaceId,
      '--account',
      fishAccount,
    ]);
    expect(inUse.status).toBe(1);
    expect(inUse.body.error.code).toBe('invalid_request');
    const spare = addProviderAccount(env, {
      workspaceId: ws.workspaceId,
      provider: 'elevenlabs',
      label: 'Spare',
      apiKey: `${KEY}3`,
    });
    const removed = awpJson([
      'provider-account',
      'remove',
      '--workspace',
      ws.workspaceId,
      '--account',
      spare,
    ]);
    expect(removed.status).toBe(0);
  });
});
