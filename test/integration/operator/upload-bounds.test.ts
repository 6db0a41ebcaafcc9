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
import type { TestDatabase } from '../../helpers/database.ts';
import { RssSampler, rawUpload, rssBytes } from '../../helpers/raw-upload.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 60_000 }) });

const UPLOADS = 60;
const UPLOAD_BYTES = 50 * 1024 * 1024;
const MAX_GROWTH_BYTES = 100 * 1024 * 1024;
/** Small enough that one upload of a few megabytes is past it. */
const BUDGET_BYTES = 4 * 1024 * 1024;
/** The operator upload routes: voice creation, a sample, a character card. */
const PATHS = [
  '/operator/api/voices',
  '/operator/api/voices/voice_abc/samples',
  '/operator/api/agents/00000000-0000-7000-8000-000000000000/character-card',
];

describeEachDialect('operator uploads before authentication on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      const ws = await seedWorkspace(handle);
      await addOperator(handle.db, ws);
      server = await apis.start(database, { env: { BODY_BUDGET_BYTES: String(BUDGET_BYTES) } });
    },
    budget({ servers: 1 }),
  );

  it('answers 60 concurrent 50 MB uploads without a session 401 and holds none of them', async () => {
    const pid = server.process.pid ?? 0;
    // Warm the routes once, so what is measured is the uploads, not a first request.
    await fetch(`${server.url}/operator/api/me`);
    const before = rssBytes(pid);
    const uploads: ReturnType<typeof rawUpload>[] = [];
    // Past the bound the test has its answer: the uploads are cut before they exhaust memory.
    const sampler = new RssSampler(pid, (rss) => {
      if (rss - before > MAX_GROWTH_BYTES) for (const upload of uploads) upload.destroy();
    });
    for (let i = 0; i < UPLOADS; i += 1) {
      uploads.push(
        rawUpload(server.url, {
          method: 'POST',
          path: PATHS[i % PATHS.length]!,
          headers: {
            origin: server.url,
            'content-type': 'multipart/form-data; boundary=xyz',
          },
          lengthBytes: UPLOAD_BYTES,
        }),
      );
    }
    const statuses = await Promise.all(uploads.map((upload) => upload.status));
    const peak = sampler.stop();
    expect({ growthUnderBound: peak - before < MAX_GROWTH_BYTES, statuses }).toEqual({
      growthUnderBound: true,
      statuses: Array(UPLOADS).fill(401),
    });
  });

  it('answers a signed-in upload past the body budget 503 service_unavailable, unread', async () => {
    const owner = await signInAs(server.url, 'owner@example.com');
    const upload = rawUpload(server.url, {
      method: 'POST',
      path: '/operator/api/voices',
      headers: {
        origin: server.url,
        cookie: owner.cookie ?? '',
        'content-type': 'multipart/form-data; boundary=xyz',
      },
      lengthBytes: BUDGET_BYTES + 1,
    });
    const [status, body] = await Promise.all([upload.status, upload.body]);
    expect({ status, body: JSON.parse(body ?? '{}') }).toEqual({
      status: 503,
      body: {
        event: 'error',
        request_id: expect.any(String),
        code: 'service_unavailable',
        retryable: true,
        detail:
          'The server is receiving as many request bodies as it accepts at once; retry shortly.',
      },
    });
  });
});
