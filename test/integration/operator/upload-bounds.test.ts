import { budget, describeEachDialect, expect, it, test, vi } from '../../fixtures/index.ts';
import { RssSampler, rawUpload, rssBytes } from '../../helpers/raw-upload.ts';

// A test may be the first to ask for the api, and then waits for it to start.
vi.setConfig({ testTimeout: budget({ servers: 1, extraMs: 60_000 }) });

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

describeEachDialect('operator uploads before authentication on %s', () => {
  test.override('apiOptions', { env: { BODY_BUDGET_BYTES: String(BUDGET_BYTES) } });

  it('answers 60 concurrent 50 MB uploads without a session 401 and holds none of them', async ({
    api: server,
  }) => {
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

  it('answers a signed-in upload past the body budget 503 service_unavailable, unread', async ({
    api: server,
    operator,
  }) => {
    const owner = operator.client;
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
