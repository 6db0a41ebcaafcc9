// `awp webhook add|list|remove|deliveries` against both databases: the secret printed once
// and stored sealed, the environment's scope, bad input refused with the API's error code.

import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { emitTestEvent } from '../../../src/webhooks/outbox.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { LLM_ENV } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { serviceEnv } from '../../helpers/server.ts';
import { runAwp } from '../../helpers/upstream.ts';

// Each command is a process start (tsx transpiles on every start: about 1.7 s on a cold CI
// machine).
const SPAWNING_TEST_TIMEOUT_MS = 90_000;

describeEachDialect('operator webhook commands on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let env: Record<string, string>;

  const awpJson = (args: string[]) => {
    const result = runAwp(env, [...args, '--json']);
    expect(result.stderr).toBe('');
    // biome-ignore lint/suspicious/noExplicitAny: the commands' JSON, checked field by field.
    return { status: result.status, body: JSON.parse(result.stdout) as any };
  };
  const scope = (environment = 'production') => [
    '--workspace',
    ws.workspaceId,
    '--environment',
    environment,
  ];

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    env = serviceEnv(database, LLM_ENV);
  });

  it(
    'adds an endpoint with its secret shown once, lists it, shows its deliveries and removes it',
    async () => {
      const added = awpJson([
        'webhook',
        'add',
        ...scope(),
        '--url',
        'https://backend.example.com/awp-events',
        '--events',
        'agent_session.ended',
        '--description',
        'call log',
      ]);
      expect(added.status).toBe(0);
      const { webhook } = added.body;
      expect(added.body.id).toBe(webhook.id);
      expect(webhook).toMatchObject({
        url: 'https://backend.example.com/awp-events',
        description: 'call log',
        events: ['agent_session.ended'],
        enabled: true,
      });
      expect(webhook.id).toMatch(/^wh_[0-9A-Za-z]{20}$/);
      expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const row = await handle.db
        .selectFrom('webhook_endpoints')
        .select('secret_ciphertext')
        .where('id', '=', webhook.id)
        .executeTakeFirstOrThrow();
      expect(row.secret_ciphertext).not.toContain(webhook.secret.slice('whsec_'.length));

      // Listed without its secret, in its own environment only.
      const listed = awpJson(['webhook', 'list', ...scope()]);
      const { secret: _secret, ...shown } = webhook;
      expect(listed.body).toEqual({ webhooks: [shown] });
      expect(awpJson(['webhook', 'list', ...scope('development')]).body).toEqual({ webhooks: [] });

      await emitTestEvent(
        handle.db,
        { workspaceId: ws.workspaceId, environment: 'production' },
        webhook.id,
        new Date(),
      );
      const deliveries = awpJson(['webhook', 'deliveries', ...scope(), '--webhook', webhook.id]);
      expect(deliveries.body.next_cursor).toBeNull();
      expect(deliveries.body.deliveries).toHaveLength(1);
      expect(deliveries.body.deliveries[0]).toMatchObject({
        webhook_id: webhook.id,
        event_type: 'webhook.test',
        state: 'pending',
        attempts: 0,
      });
      const text = runAwp(env, ['webhook', 'deliveries', ...scope(), '--webhook', webhook.id]);
      expect(text.stdout).toContain('webhook.test  pending  attempts 0');

      expect(awpJson(['webhook', 'remove', ...scope(), '--webhook', webhook.id]).body).toEqual({
        removed: webhook.id,
      });
      expect(awpJson(['webhook', 'list', ...scope()]).body).toEqual({ webhooks: [] });
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    'prints the secret in text once and refuses bad input with the API’s codes',
    async () => {
      const text = runAwp(env, [
        'webhook',
        'add',
        ...scope(),
        '--url',
        'https://backend.example.com/second',
      ]);
      expect(text.status).toBe(0);
      expect(text.stdout).toMatch(
        /^Added webhook wh_\w{20} for agent_session\.started, agent_session\.ended, transcription_session\.started, transcription_session\.ended, streaming_session\.started, streaming_session\.ended\nSigning secret \(shown once\): whsec_\S{44}\n$/,
      );
      for (const [args, code] of [
        [['add', ...scope(), '--url', 'ftp://example.com/'], 'invalid_request'],
        [
          ['add', ...scope(), '--url', 'https://example.com/', '--events', 'call.ended'],
          'invalid_request',
        ],
        [['remove', ...scope(), '--webhook', 'wh_unknown'], 'not_found'],
        [['deliveries', ...scope('development'), '--webhook', 'wh_unknown'], 'not_found'],
      ] as const) {
        const result = awpJson(['webhook', ...args]);
        expect(result.status, args.join(' ')).toBe(1);
        expect(result.body.error.code, args.join(' ')).toBe(code);
      }
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );
});
