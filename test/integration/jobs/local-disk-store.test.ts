import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  audioObjectKey,
  InvalidObjectKeyError,
  MissingSourceFileError,
} from '../../../src/storage/audio-store.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';

/** A tmpfs folder on most Linux machines, usually another file system than tmpdir(). */
const OTHER_FILE_SYSTEM = '/dev/shm';

/**
 * Whether a rename from tmpdir() into {@link OTHER_FILE_SYSTEM} fails with EXDEV here. The
 * copy fallback of `putFile` can only be provoked with two file systems at hand; where
 * there is no such pair (no /dev/shm, or one file system for both) its test is skipped.
 */
function crossDeviceRenameFails(): boolean {
  const probe = join(tmpdir(), `awp-exdev-probe-${randomBytes(4).toString('hex')}`);
  const moved = join(OTHER_FILE_SYSTEM, `awp-exdev-probe-${randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(probe, 'probe');
    renameSync(probe, moved);
    rmSync(moved, { force: true });
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EXDEV';
  } finally {
    rmSync(probe, { force: true });
  }
}

describe('LocalDiskAudioStore', () => {
  let rootDir: string;
  let store: LocalDiskAudioStore;

  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'awp-store-'));
    store = new LocalDiskAudioStore(rootDir);
  });

  afterEach(async () => {
    await rm(rootDir, { recursive: true, force: true });
  });

  // What every store does (write, read, delete, move in, refuse unsafe keys) is the
  // contract suite's, run on this store and on an S3-compatible server
  // (test/integration/storage/audio-store-contract.test.ts). Here: what is the disk's own.

  it('overwrites an object in place, leaving no temporary file beside it', async () => {
    const key = 'org_1/2025/01/31/req.wav';
    await store.put(key, Buffer.from('first'), 'audio/wav');
    await store.put(key, Buffer.from('second'), 'audio/wav');
    expect(await readdir(join(rootDir, 'org_1/2025/01/31'))).toEqual(['req.wav']);
  });

  describe('putFile', () => {
    let sourceDir: string;

    beforeEach(async () => {
      sourceDir = await mkdtemp(join(tmpdir(), 'awp-store-source-'));
    });

    afterEach(async () => {
      await rm(sourceDir, { recursive: true, force: true });
    });

    it('renames the file into place: nothing but the object is left in its folder', async () => {
      const key = 'org_1/2025/01/31/req.ogg';
      await store.put(key, Buffer.from('older'), 'audio/ogg');
      const source = join(sourceDir, 'req.ogg');
      await writeFile(source, randomBytes(10_000));
      await store.putFile(key, source, 'audio/ogg');
      expect(await readdir(join(rootDir, 'org_1/2025/01/31'))).toEqual(['req.ogg']);
    });

    it.skipIf(!crossDeviceRenameFails())(
      'copies then removes the source when it sits on another file system (EXDEV)',
      async () => {
        const otherDir = await mkdtemp(join(OTHER_FILE_SYSTEM, 'awp-store-exdev-'));
        try {
          const key = 'org_1/2025/01/31/req.pcm';
          const audio = randomBytes(50_000);
          const source = join(otherDir, 'req.pcm');
          await writeFile(source, audio);

          const { location } = await store.putFile(key, source, 'audio/pcm');

          expect(location).toBe(pathToFileURL(join(rootDir, key)).href);
          expect((await store.get(key))?.equals(audio)).toBe(true);
          expect(await readdir(otherDir)).toEqual([]);
          // No temporary copy left beside the object.
          expect(await readdir(join(rootDir, 'org_1/2025/01/31'))).toEqual(['req.pcm']);
          await expect(store.putFile(key, source, 'audio/pcm')).rejects.toBeInstanceOf(
            MissingSourceFileError,
          );
        } finally {
          await rm(otherDir, { recursive: true, force: true });
        }
      },
    );
  });

  it.each([
    '../escape.mp3',
    'org/../../escape.mp3',
    'org/./x.mp3',
    '/etc/passwd',
    'C:/x.mp3',
    'org\\..\\x.mp3',
    'org//x.mp3',
    '',
  ])('rejects the key %j', async (key) => {
    await expect(store.put(key, Buffer.from('x'), 'audio/mpeg')).rejects.toBeInstanceOf(
      InvalidObjectKeyError,
    );
    await expect(store.get(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
  });

  it('builds keys as workspace/yyyy/mm/dd/request.ext in UTC', () => {
    const createdAt = new Date('2025-03-09T23:30:00-05:00');
    expect(
      audioObjectKey({ workspaceId: 'org_1', requestId: 'r1', extension: 'ogg', createdAt }),
    ).toBe('org_1/2025/03/10/r1.ogg');
    expect(() =>
      audioObjectKey({ workspaceId: '..', requestId: 'r1', extension: 'ogg', createdAt }),
    ).toThrow(InvalidObjectKeyError);
    expect(() =>
      audioObjectKey({ workspaceId: 'a/b', requestId: 'r1', extension: 'ogg', createdAt }),
    ).toThrow(InvalidObjectKeyError);
  });
});
