import { randomUUID } from 'node:crypto';
import type { Dirent } from 'node:fs';
import {
  copyFile,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
} from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type AudioStore,
  assertSafeObjectKey,
  InvalidObjectKeyError,
  MissingSourceFileError,
} from './audio-store.ts';

export interface LocalDiskAudioStoreOptions {
  /** Flush each `put` to the disk before it is renamed into place. Default false. */
  syncWrites?: boolean;
}

/**
 * An {@link AudioStore} on the local file system, the single-node default (under
 * `DATA_DIR`). Each object is written or copied under a temporary name next to its target
 * and renamed into place, so readers never see a partial file and a crash leaves at most a
 * stray `.tmp` file. The content type is not stored: the key's extension carries it.
 *
 * Writes are not fsynced unless `syncWrites` is set. Synthesized audio is kept best effort:
 * the file system's own write-back commits it within seconds, a power loss in that window
 * loses at most those recordings, and one fsync per file (mostly kernel journaling) cost
 * more CPU than synthesizing the audio. Voice samples, which a user uploaded once and a
 * clone needs later, set `syncWrites`.
 *
 * @example
 * ```ts
 * const store = new LocalDiskAudioStore(join(config.DATA_DIR, 'audio'));
 * await store.put('org_1/2025/01/31/0194....mp3', audio, 'audio/mpeg');
 * await store.putFile('org_1/2025/01/31/0195....ogg', '/data/persistence-spool/0195....ogg', 'audio/ogg');
 * ```
 */
export class LocalDiskAudioStore implements AudioStore {
  readonly rootDir: string;
  readonly #syncWrites: boolean;

  constructor(rootDir: string, options: LocalDiskAudioStoreOptions = {}) {
    this.rootDir = resolve(rootDir);
    this.#syncWrites = options.syncWrites ?? false;
  }

  async put(objectKey: string, audio: Buffer, _contentType: string): Promise<{ location: string }> {
    const target = this.pathOf(objectKey);
    const temporary = await this.temporaryBeside(target);
    try {
      const file = await open(temporary, 'wx');
      try {
        await file.writeFile(audio);
        if (this.#syncWrites) await file.sync();
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

  async putFile(
    objectKey: string,
    sourcePath: string,
    _contentType: string,
  ): Promise<{ location: string }> {
    const target = this.pathOf(objectKey);
    const move = async () => {
      try {
        await this.moveInto(sourcePath, target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && !(await exists(sourcePath))) {
          throw new MissingSourceFileError(sourcePath);
        }
        throw error;
      }
    };
    try {
      await move();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // The object's folder does not exist yet: made once, not checked before every move.
      await mkdir(dirname(target), { recursive: true });
      await move();
    }
    return { location: pathToFileURL(target).href };
  }

  async head(objectKey: string): Promise<{ location: string } | null> {
    const target = this.pathOf(objectKey);
    return (await exists(target)) ? { location: pathToFileURL(target).href } : null;
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

  async delete(objectKey: string): Promise<boolean> {
    try {
      await unlink(this.pathOf(objectKey));
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw error;
    }
  }

  async list(prefix: string): Promise<string[]> {
    if (!prefix.endsWith('/')) throw new InvalidObjectKeyError(prefix);
    const folder = this.pathOf(prefix.slice(0, -1));
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { recursive: true, withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw error;
    }
    return entries
      .filter((entry) => entry.isFile() && !isTemporary(entry.name))
      .map((entry) => {
        const inside = relative(folder, join(entry.parentPath, entry.name));
        return `${prefix}${inside.split(sep).join('/')}`;
      })
      .sort();
  }

  /**
   * Renames the source into place; a source on another file system (a spool folder mounted
   * apart from the store) is copied instead. ENOENT means the source or the target's
   * folder is missing.
   */
  private async moveInto(sourcePath: string, target: string): Promise<void> {
    try {
      await rename(sourcePath, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await this.copyThenRemove(sourcePath, target);
    }
  }

  /** Copies under a temporary name, renames it into place, then removes the source. */
  private async copyThenRemove(sourcePath: string, target: string): Promise<void> {
    const temporary = await this.temporaryBeside(target);
    try {
      await copyFile(sourcePath, temporary);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !(await exists(sourcePath))) {
        throw new MissingSourceFileError(sourcePath);
      }
      throw error;
    }
    // Another mover may have taken the source meanwhile; the object is in place either way.
    await unlink(sourcePath).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  /**
   * A fresh temporary name in the target's folder (created when missing): the same folder,
   * so the final rename stays on one file system and is atomic.
   */
  private async temporaryBeside(target: string): Promise<string> {
    const directory = dirname(target);
    await mkdir(directory, { recursive: true });
    return join(directory, `.${randomUUID()}.tmp`);
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

/** A write in progress (see `temporaryBeside`): not an object yet. */
function isTemporary(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}
