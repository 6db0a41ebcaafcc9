import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import { beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

// 100 characters at the default 10 credits per 1,000 characters: 1 credit each.
const TEXT_100 =
  'This sentence has been written so that it is exactly one hundred characters long for credit tests!!!';

// Ten syntheses at once on a busy machine take a while.
vi.setConfig({ testTimeout: budget({ extraMs: 60_000 }) });

describeEachDialect('credit and rate limits on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  const tts = (key: string, text = TEXT_100, base = server.url) =>
    fetch(`${base}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, voice_id: NATIVE_VOICES[0]!.id, output_format: 'pcm_24000' }),
    });

  beforeAll(
    async ({ databases, apis }) => {
      expect(TEXT_100.length).toBe(100);
      ({ database, handle } = await databases.get(dialect));
      // 50 one-shots at once: above the per-process cap of running syntheses, which this file
      // does not test (test/integration/system/operations.test.ts does).
      server = await apis.start(database, {
        env: { TTS_RATE_LIMIT_PER_MINUTE: '0', ONESHOT_MAX_CONCURRENT: '64' },
      });
    },
    budget({ servers: 1 }),
  );

  it('refuses a request the balance cannot cover with 402 and leaves a failed ledger row', async () => {
    const ws = await seedWorkspace(handle, { credits: 0.5 });
    const response = await tts(ws.productionKey);
    expect(response.status).toBe(402);
    const body = (await response.json()) as { code: string; retryable: boolean };
    expect(body).toMatchObject({ code: 'insufficient_credit', retryable: false });
    const rows = await handle.db
      .selectFrom('synthesis_requests')
      .selectAll()
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'failed', error_code: 'insufficient_credit' });
    expect((await new Workspaces(handle.db).get(ws.workspaceId)).credits).toBe(0.5);
    // A shorter text it can cover goes through.
    expect((await tts(ws.productionKey, 'Hi.')).status).toBe(200);
  });

  it('lets at most 10 of 50 concurrent requests through a balance that covers 10', async () => {
    const ws = await seedWorkspace(handle, { credits: 10 });
    const responses = await Promise.all(Array.from({ length: 50 }, () => tts(ws.productionKey)));
    const statuses = responses.map((r) => r.status);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    const workspace = await new Workspaces(handle.db).get(ws.workspaceId);
    expect(workspace.credits).toBe(0);
    const rows = await handle.db
      .selectFrom('synthesis_requests')
      .select(['status', 'cost_millicredits'])
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(rows.filter((r) => r.status === 'succeeded')).toHaveLength(10);
    expect(rows.filter((r) => r.status === 'failed')).toHaveLength(40);
    expect(rows.reduce((sum, r) => sum + Number(r.cost_millicredits), 0)).toBe(10_000);
  });

  it(
    'limits synthesis requests per key across api processes, with Retry-After',
    async () => {
      // One request a minute: no cell refills while the first request is synthesized, however
      // slow the machine.
      const limited = await startServer({ database, env: { TTS_RATE_LIMIT_PER_MINUTE: '1' } });
      const other = await startServer({
        database,
        env: { TTS_RATE_LIMIT_PER_MINUTE: '1', REDIS_PREFIX: limited.env.REDIS_PREFIX! },
      });
      try {
        const ws = await seedWorkspace(handle);
        // Burst of one (a sixth of the per-minute rate, at least one), shared by both processes.
        expect((await tts(ws.productionKey, 'One.', limited.url)).status).toBe(200);
        const refused = await tts(ws.productionKey, 'Two.', other.url);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await refused.json()).toMatchObject({ code: 'rate_limited', retryable: true });
        // Another key has its own budget.
        const second = await seedWorkspace(handle);
        expect((await tts(second.productionKey, 'Three.', other.url)).status).toBe(200);
      } finally {
        await Promise.all([limited.stop(), other.stop()]);
      }
    },
    budget({ servers: 2 }),
  );
});
