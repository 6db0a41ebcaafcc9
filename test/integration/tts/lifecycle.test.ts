import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import { startServer } from '../../helpers/server.ts';
import { decodeDelivered } from '../../helpers/tts.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

/** About 15,000 characters: long enough to be caught mid-synthesis. */
const LONG_TEXT = Array.from(
  { length: 150 },
  (_, i) => `Sentence number ${i + 1} keeps the engine busy for a while longer than usual.`,
).join(' ');

async function waitForStartedRow(handle: DatabaseHandle, workspaceId: string) {
  return waitFor(
    () =>
      handle.db
        .selectFrom('synthesis_requests')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', 'started')
        .executeTakeFirst(),
    { what: 'a started ledger row' },
  );
}

/** SIGTERM grace of the shutdown test: the request in flight must finish within it. */
const SHUTDOWN_GRACE_MS = 60_000;

describeEachDialect('request lifecycle across process stops on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
  });

  const longRequest = (url: string, key: string, text = LONG_TEXT) =>
    fetch(`${url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        text,
        voice_id: NATIVE_VOICES[0]!.id,
        output_format: 'opus_48000_64',
      }),
    });

  it(
    'closes a request cut by a crash as failed at the next start and returns its credit',
    async () => {
      const env = { INSTANCE_ID: `crash-test-${dialect}` };
      const ws = await seedWorkspace(handle, { credits: 1000 });
      const server = await startServer({ database, env });
      const pending = longRequest(server.url, ws.productionKey).catch((error: unknown) => error);
      const row = await waitForStartedRow(handle, ws.workspaceId);
      const reservedCredits = (await new Workspaces(handle.db).get(ws.workspaceId)).credits;
      expect(reservedCredits).toBeLessThan(1000);
      await server.kill();
      expect(await pending).toBeInstanceOf(Error);
      const left = await handle.db
        .selectFrom('synthesis_requests')
        .selectAll()
        .where('request_id', '=', row.request_id)
        .executeTakeFirstOrThrow();
      expect(left.status).toBe('started');

      const restarted = await startServer({ database, env });
      try {
        const closed = await handle.db
          .selectFrom('synthesis_requests')
          .selectAll()
          .where('request_id', '=', row.request_id)
          .executeTakeFirstOrThrow();
        expect(closed).toMatchObject({ status: 'failed', error_code: 'internal_error' });
        expect(closed.finished_at).toEqual(expect.any(String));
        expect((await new Workspaces(handle.db).get(ws.workspaceId)).credits).toBe(1000);
      } finally {
        await restarted.stop();
      }
    },
    budget({ servers: 2 }),
  );

  it(
    'finishes requests in flight on SIGTERM, then exits cleanly',
    async () => {
      const ws = await seedWorkspace(handle);
      const server = await startServer({
        database,
        env: { SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS) },
      });
      const pending = longRequest(server.url, ws.productionKey, LONG_TEXT.slice(0, 2000));
      await waitForStartedRow(handle, ws.workspaceId);
      const exited = server.stop(SHUTDOWN_GRACE_MS + 15_000);
      const response = await pending.catch((error: unknown) => {
        throw new Error(`request failed during shutdown; server output:\n${server.output()}`, {
          cause: error,
        });
      });
      expect(response.status).toBe(200);
      const audio = Buffer.from(await response.arrayBuffer());
      const decoded = await decodeDelivered('opus_48000_64', audio);
      expect(decoded.durationMs).toBeGreaterThan(15_000);
      expect(await exited).toBe(0);
      // New connections are refused once shutdown began.
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    },
    budget({ servers: 1, extraMs: SHUTDOWN_GRACE_MS }),
  );
});
