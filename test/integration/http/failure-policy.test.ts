import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_VOICES } from '../../../src/providers/native/index.ts';
import { FATAL_EXIT_CODE } from '../../../src/system/failure-policy.ts';
import { waitUntil } from '../../helpers/credit.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import { startServer } from '../../helpers/server.ts';
import { openStream, streamUrl } from '../../helpers/stream.ts';

// The policy does not depend on the database: SQLite only.
describe('failure policy of the api process', () => {
  let database: TestDatabase;
  let productionKey: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const handle = await openTestDatabase(database);
    productionKey = (await seedWorkspace(handle)).productionKey;
    await handle.close();
  });

  afterAll(async () => {
    await database?.drop();
  });

  it.each([
    ['unhandled_rejection', 'unhandledRejection', 'test fault: unhandled rejection'],
    ['uncaught_exception', 'uncaughtException', 'test fault: uncaught exception'],
  ])(
    'logs %s as fatal, lets a stream in flight finish, then exits non-zero',
    async (fault, kind, message) => {
      const server = await startServer({
        database,
        env: { TEST_FAULT: fault, SHUTDOWN_GRACE_MS: '30000' },
      });
      try {
        const client = await openStream(streamUrl(server.url), {
          authorization: `Bearer ${productionKey}`,
        });
        client.send({
          event: 'start',
          request: { voice_id: NATIVE_VOICES[0]!.id, output_format: 'pcm_24000' },
        });
        client.send({ event: 'text', text: 'Still speaking while the process fails.' });
        const exited = once(server.process, 'exit');

        server.process.kill('SIGUSR2');
        const fatalLine = () => server.logs().find((line) => line.level === 60);
        await waitUntil(async () => fatalLine() !== undefined, 10_000, 'the fatal log line');
        expect(fatalLine()).toMatchObject({
          msg: 'unhandled failure: draining, then exiting for a restart',
          failure: kind,
          request_id: 'test-fault',
          route: 'test-fault',
          err: { message },
        });
        // Draining: no new connections, but the stream in flight runs to its end.
        await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
        expect(server.process.exitCode).toBeNull();
        client.send({ event: 'stop' });
        const finish = await client.waitFor((event) => event.event === 'finish');
        expect(finish).toMatchObject({ reason: 'stop' });
        expect((await client.closed).code).toBe(1000);

        const [code] = await exited;
        expect(code).toBe(FATAL_EXIT_CODE);
        expect(server.logs().some((line) => line.msg === 'stopped')).toBe(true);
      } finally {
        await server.kill();
      }
    },
  );
});
