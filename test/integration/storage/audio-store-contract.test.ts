import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type AudioStore,
  InvalidObjectKeyError,
  MissingSourceFileError,
} from '../../../src/storage/audio-store.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';
import { S3AudioStore } from '../../../src/storage/s3-store.ts';
import { type S3Server, startS3Server } from '../../helpers/s3-server.ts';

/**
 * The AudioStore contract, run against every backend: the local disk (one host) and a real
 * S3-compatible server (SeaweedFS) as a fleet uses it. What a caller observes must not
 * depend on the backend, except the scheme of `location`.
 */

interface Backend {
  name: string;
  /** A fresh, empty store and the location it gives a key. */
  open(): Promise<{ store: AudioStore; locationOf(key: string): string; close(): Promise<void> }>;
}

let s3: S3Server;

beforeAll(async () => {
  s3 = await startS3Server();
}, 120_000);

afterAll(async () => {
  await s3?.stop();
});

const backends: Backend[] = [
  {
    name: 'local disk',
    open: async () => {
      const root = await mkdtemp(join(tmpdir(), 'awp-store-'));
      return {
        store: new LocalDiskAudioStore(root),
        locationOf: (key) => new URL(`file://${join(root, key)}`).href,
        close: () => rm(root, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'S3-compatible server',
    open: async () => {
      const prefix = `run-${randomBytes(4).toString('hex')}/audio`;
      return {
        store: new S3AudioStore(s3.client, { bucket: s3.bucket, prefix }),
        locationOf: (key) => `s3://${s3.bucket}/${prefix}/${key}`,
        close: async () => {},
      };
    },
  },
];

describe.each(backends)('AudioStore on the $name', (backend) => {
  let store: AudioStore;
  let locationOf: (key: string) => string;
  let close: () => Promise<void>;
  let sourceDir: string;

  beforeEach(async () => {
    ({ store, locationOf, close } = await backend.open());
    sourceDir = await mkdtemp(join(tmpdir(), 'awp-store-source-'));
  });

  afterEach(async () => {
    await close();
    await rm(sourceDir, { recursive: true, force: true });
  });

  it('writes, overwrites and reads back an object, and names its location', async () => {
    const key = 'org_1/2025/01/31/req.wav';
    const { location } = await store.put(key, Buffer.from('first'), 'audio/wav');
    expect(location).toBe(locationOf(key));
    await store.put(key, Buffer.from('second'), 'audio/wav');
    expect((await store.get(key))?.toString()).toBe('second');
    expect(await store.head(key)).toEqual({ location });
  });

  it('returns null for a missing object', async () => {
    expect(await store.get('org_1/2025/01/31/missing.mp3')).toBeNull();
    expect(await store.head('org_1/2025/01/31/missing.mp3')).toBeNull();
  });

  it('deletes an object once: true when it was there, false after', async () => {
    const key = 'org_1/generations/voice_1/gen.wav';
    await store.put(key, Buffer.from('audio'), 'audio/wav');
    expect(await store.delete(key)).toBe(true);
    expect(await store.get(key)).toBeNull();
    expect(await store.delete(key)).toBe(false);
    expect(await store.delete('org_1/nowhere/at/all.wav')).toBe(false);
  });

  it('moves a file in with putFile, replacing an older object, and removes the file', async () => {
    const key = 'org_1/2025/01/31/req.ogg';
    await store.put(key, Buffer.from('older'), 'audio/ogg');
    const audio = randomBytes(200_000);
    const source = join(sourceDir, 'req.ogg');
    await writeFile(source, audio);

    const { location } = await store.putFile(key, source, 'audio/ogg');

    expect(location).toBe(locationOf(key));
    expect(await store.head(key)).toEqual({ location });
    expect((await store.get(key))?.equals(audio)).toBe(true);
    expect(await readdir(sourceDir)).toEqual([]);
  });

  it('throws MissingSourceFileError when the file is gone, and leaves the object alone', async () => {
    const key = 'org_1/2025/01/31/req.ogg';
    const source = join(sourceDir, 'req.ogg');
    await writeFile(source, 'moved once');
    await store.putFile(key, source, 'audio/ogg');

    const again = store.putFile(key, source, 'audio/ogg');

    await expect(again).rejects.toBeInstanceOf(MissingSourceFileError);
    await expect(again).rejects.toMatchObject({ sourcePath: source });
    expect((await store.get(key))?.toString()).toBe('moved once');
  });

  it('rejects an unsafe key before touching the file or the store', async () => {
    const source = join(sourceDir, 'req.ogg');
    await writeFile(source, 'kept');
    await expect(store.putFile('../escape.ogg', source, 'audio/ogg')).rejects.toBeInstanceOf(
      InvalidObjectKeyError,
    );
    await expect(store.head('../escape.ogg')).rejects.toBeInstanceOf(InvalidObjectKeyError);
    await expect(store.put('org//x.mp3', Buffer.from('x'), 'audio/mpeg')).rejects.toBeInstanceOf(
      InvalidObjectKeyError,
    );
    await expect(store.get('/etc/passwd')).rejects.toBeInstanceOf(InvalidObjectKeyError);
    expect((await readFile(source)).toString()).toBe('kept');
  });

  it('lists the keys under a folder, sorted, and nothing of a neighbouring folder', async () => {
    const keys = ['org_1/2025/02/01/b.ogg', 'org_1/2025/01/31/a.ogg', 'org_1/recordings/s1.ogg'];
    for (const key of keys) await store.put(key, Buffer.from(key), 'audio/ogg');
    await store.put('org_10/2025/01/31/other.ogg', Buffer.from('x'), 'audio/ogg');

    expect(await store.list('org_1/')).toEqual([...keys].sort());
    expect(await store.list('org_1/2025/')).toEqual([
      'org_1/2025/01/31/a.ogg',
      'org_1/2025/02/01/b.ogg',
    ]);
    expect(await store.list('org_2/')).toEqual([]);
    await expect(store.list('org_1')).rejects.toBeInstanceOf(InvalidObjectKeyError);
  });
});

describe('S3 stores of one bucket', () => {
  it('keep apart what lives under different prefixes', async () => {
    const audio = new S3AudioStore(s3.client, { bucket: s3.bucket, prefix: 'apart/audio' });
    const samples = new S3AudioStore(s3.client, { bucket: s3.bucket, prefix: 'apart/samples' });
    await audio.put('org_1/a.ogg', Buffer.from('audio'), 'audio/ogg');
    expect(await samples.get('org_1/a.ogg')).toBeNull();
    expect(await samples.list('org_1/')).toEqual([]);
    expect(await audio.list('org_1/')).toEqual(['org_1/a.ogg']);
  });
});
