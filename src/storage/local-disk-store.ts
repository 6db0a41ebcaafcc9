import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AudioStore, assertSafeObjectKey, InvalidObjectKeyError } from './audio-store.ts';

/**
 * An {@link AudioStore} on the local file system, the single-node default (under
 * `DATA_DIR`). Each put writes a temporary file next to the target, flushes it to disk and
 * renames it into place, so readers never see a partial file and a crash leaves at most a
 * stray `.tmp` file. The content type is not stored: the key's extension carries it.
 *
 * @example
 * ```ts
 * const store = new LocalDiskAudioStore(join(config.DATA_DIR, 'audio'));
 * await store.put('org_1/2025/01/31/0194....mp3', audio, 'audio/mpeg');
 * ```
 */
export class LocalDiskAudioStore implements AudioStore {
  readonly rootDir: string;

  constructor(rootDir: string) {
    this.rootDir = resolve(rootDir);
  }

  async put(objectKey: string, audio: Buffer, _contentType: string): Promise<{ location: string }> {
    const target = this.pathOf(objectKey);
    const directory = dirname(target);
    await mkdir(directory, { recursive: true });
    // Same directory as the target, so the rename stays on one file system and is atomic.
    const temporary = join(directory, `.${randomUUID()}.tmp`);
    try {
      const file = await open(temporary, 'wx');
      try {
        await file.writeFile(audio);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { location: pathToFileURL(target).href };
  }

  async get(objectKey: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(objectKey));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw error;
    }
  }

  /** The absolute path of a key; throws for keys that would leave the root. */
  private pathOf(objectKey: string): string {
    assertSafeObjectKey(objectKey);
    const path = resolve(this.rootDir, objectKey);
    const inside = relative(this.rootDir, path);
    // Second line of defence behind the key check.
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
      throw new InvalidObjectKeyError(objectKey);
    }
    return path;
  }
}
