import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audioObjectKey, InvalidObjectKeyError } from '../../../src/storage/audio-store.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';

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

  it('writes, overwrites and reads back an object, leaving no temporary file', async () => {
    const key = 'org_1/2025/01/31/req.wav';
    const { location } = await store.put(key, Buffer.from('first'), 'audio/wav');
    expect(location).toBe(new URL(`file://${join(rootDir, key)}`).href);
    await store.put(key, Buffer.from('second'), 'audio/wav');
    expect((await store.get(key))?.toString()).toBe('second');
    expect(await readdir(join(rootDir, 'org_1/2025/01/31'))).toEqual(['req.wav']);
  });

  it('returns null for a missing object', async () => {
    expect(await store.get('org_1/2025/01/31/missing.mp3')).toBeNull();
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
