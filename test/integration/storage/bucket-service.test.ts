import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type S3Server, startS3Server } from '../../helpers/s3-server.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, serviceEnv } from '../../helpers/server.ts';
import { runAwp } from '../../helpers/upstream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

/**
 * A deployment on a bucket (`STORAGE_URL=s3://...`): the api's synthesized audio lands in
 * the S3-compatible server, not on its disk, and `awp storage copy-to-bucket` moves an
 * existing local store into the bucket.
 */

let s3: S3Server;

beforeAll(async () => {
  s3 = await startS3Server();
}, 120_000);

afterAll(async () => {
  await s3?.stop();
});

async function bucketKeys(prefix: string): Promise<string[]> {
  const page = await s3.client.send(
    new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${prefix}/` }),
  );
  return (page.Contents ?? []).map((object) => object.Key ?? '').sort();
}

async function bucketObject(key: string): Promise<Buffer> {
  const object = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
}

describeEachDialect('stored audio in a bucket on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let server: RunningServer;
  const prefix = `deploy-${dialect}`;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, { env: s3.env(prefix) });
    },
    budget({ servers: 1 }),
  );

  it('stores a one-shot request’s audio in the bucket, byte for byte, and nothing on disk', async () => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ws.productionKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        text: 'Stored in a bucket.',
        voice_id: NATIVE_VOICES[0]?.id,
        output_format: 'pcm_24000',
      }),
    });
    expect(response.status).toBe(200);
    const audio = Buffer.from(await response.arrayBuffer());
    const requestId = response.headers.get('x-request-id') ?? '';

    const row = await waitFor(
      async () => {
        const current = await handle.db
          .selectFrom('synthesis_requests')
          .select(['audio_persisted', 'audio_location'])
          .where('request_id', '=', requestId)
          .executeTakeFirstOrThrow();
        return Number(current.audio_persisted) === 1 ? current : undefined;
      },
      { what: `the audio of ${requestId} to be stored`, intervalMs: 100 },
    );
    const keys = await bucketKeys(`${prefix}/audio/${ws.workspaceId}`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`/${requestId}\\.pcm$`));
    expect(row.audio_location).toBe(`s3://${s3.bucket}/${keys[0]}`);
    expect((await bucketObject(keys[0] ?? '')).equals(audio)).toBe(true);
    expect(existsSync(join(database.dataDir, 'audio'))).toBe(false);
  });

  it('copies a local store into the bucket once, and skips what is there on a second run', async () => {
    const files = {
      [`audio/${ws.workspaceId}/2026/01/02/r1.ogg`]: 'first audio',
      [`audio/${ws.workspaceId}/recordings/s1.ogg`]: 'a recording',
      [`voice-samples/${ws.workspaceId}/voice_1/sample_1.wav`]: 'a sample',
    };
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(database.dataDir, path, '..'), { recursive: true });
      await writeFile(join(database.dataDir, path), content);
    }
    const env = serviceEnv(database, s3.env(`${prefix}-copied`));

    const first = runAwp(env, ['storage', 'copy-to-bucket', '--json']);
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      audio: { copied: 2, skipped: 0, bytes: 22 },
      samples: { copied: 1, skipped: 0, bytes: 8 },
    });
    expect(await bucketKeys(`${prefix}-copied`)).toEqual([
      `${prefix}-copied/audio/${ws.workspaceId}/2026/01/02/r1.ogg`,
      `${prefix}-copied/audio/${ws.workspaceId}/recordings/s1.ogg`,
      `${prefix}-copied/samples/${ws.workspaceId}/voice_1/sample_1.wav`,
    ]);
    expect(
      (
        await bucketObject(`${prefix}-copied/samples/${ws.workspaceId}/voice_1/sample_1.wav`)
      ).toString(),
    ).toBe('a sample');

    const again = runAwp(env, ['storage', 'copy-to-bucket', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({
      audio: { copied: 0, skipped: 2, bytes: 0 },
      samples: { copied: 0, skipped: 1, bytes: 0 },
    });
  });
});
