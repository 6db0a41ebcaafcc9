import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { FATAL_EXIT_CODE } from '../../../src/system/failure-policy.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import { waitUntil } from '../../helpers/credit.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import { ROOT, serviceEnv, startServer } from '../../helpers/server.ts';
import { openStream, streamUrl } from '../../helpers/stream.ts';

// The policy does not depend on the database: SQLite only.
describe('failure policy of the api and jobs processes', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let productionKey: string;

  beforeAll(async ({ databases }) => {
    database = await databases.empty('sqlite');
    const handle = await openTestDatabase(database);
    productionKey = (await seedWorkspace(handle)).productionKey;
    await handle.close();
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

  it('logs an unhandled rejection in the jobs process as fatal and exits non-zero', async () => {
    const child = spawn(process.execPath, ['--enable-source-maps', 'dist/src/jobs/main.js'], {
      cwd: ROOT,
      env: serviceEnv(database, { TEST_FAULT: 'unhandled_rejection' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = once(child, 'exit');
    try {
      await waitUntil(async () => output.includes('job workers running'), 20_000, 'the jobs');
      child.kill('SIGUSR2');
      const [code] = await exited;
      expect(code).toBe(FATAL_EXIT_CODE);
      const fatal = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.level === 60);
      expect(fatal).toMatchObject({
        service: 'jobs',
        failure: 'unhandledRejection',
        request_id: 'test-fault',
        err: { message: 'test fault: unhandled rejection' },
      });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
