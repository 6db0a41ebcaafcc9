import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AUDIO_FILE_EXTENSIONS } from '../storage/audio-store.ts';

/**
 * The persistence spool: a folder shared by the api (which writes each finished request's
 * audio there) and the jobs process (which moves the files into the audio store). A file is
 * named `<requestId>.<extension>`, so a file without a batch can be matched to its ledger
 * row; it is written under a temporary name and renamed, so a complete name always holds
 * complete audio.
 */

/** Request ids as the service makes them (UUIDs), and nothing that could leave the folder. */
const REQUEST_ID = /^[A-Za-z0-9_-]{1,128}$/;
const SPOOL_FILE = new RegExp(`^([A-Za-z0-9_-]{1,128})\\.(${AUDIO_FILE_EXTENSIONS.join('|')})$`);
/** `.<spool file name>.<uuid>.tmp`: being written, or left by a process that died. */
const TEMPORARY_FILE = /^\..+\.[0-9a-f-]{36}\.tmp$/;

/** Thrown for a request id or extension that cannot name a spool file. */
export class InvalidSpoolFileError extends Error {
  constructor(readonly fileName: string) {
    super(`not a spool file name: ${JSON.stringify(fileName)}`);
    this.name = 'InvalidSpoolFileError';
  }
}

/** The spool file name of a request's audio; throws {@link InvalidSpoolFileError}. */
export function spoolFileName(requestId: string, extension: string): string {
  const name = `${requestId}.${extension}`;
  if (!REQUEST_ID.test(requestId) || !SPOOL_FILE.test(name)) {
    throw new InvalidSpoolFileError(name);
  }
  return name;
}

/** What a name in the spool folder is: a spool file (with its request), a temporary file, or neither. */
export type SpoolEntryKind =
  | { kind: 'audio'; requestId: string; extension: string }
  | { kind: 'temporary' }
  | { kind: 'other' };

/** Classifies a file name found in the spool folder. */
export function classifySpoolName(name: string): SpoolEntryKind {
  const match = SPOOL_FILE.exec(name);
  if (match) return { kind: 'audio', requestId: match[1]!, extension: match[2]! };
  if (TEMPORARY_FILE.test(name)) return { kind: 'temporary' };
  return { kind: 'other' };
}

/**
 * The path of `fileName` inside `dir`; throws {@link InvalidSpoolFileError} unless it is a
 * spool file name, so a job's data can never point outside the folder.
 */
export function spoolFilePath(dir: string, fileName: string): string {
  if (classifySpoolName(fileName).kind !== 'audio') throw new InvalidSpoolFileError(fileName);
  return path.join(dir, fileName);
}

/** Audio already in a complete file of its own (a spooled one-shot answer). */
export interface AudioFile {
  readonly file: string;
  readonly byteLength: number;
}

/**
 * Writes `audio` to `dir/fileName` under a temporary name, then renames it into place,
 * replacing an earlier file of the same name. Not fsynced: the spool is best effort like
 * the store it feeds. Creates the folder when it is missing.
 */
export async function writeSpoolFile(dir: string, fileName: string, audio: Buffer): Promise<void> {
  await placeSpoolFile(dir, fileName, (temporary) => writeFile(temporary, audio, { flag: 'wx' }));
}

/**
 * Puts the complete file `source` into the spool as `dir/fileName`, like
 * {@link writeSpoolFile}, without copying it when it can: a hard link on the same file
 * system, a copy otherwise. `source` stays where it is, and may be removed at once after.
 */
export async function linkSpoolFile(dir: string, fileName: string, source: string): Promise<void> {
  await placeSpoolFile(dir, fileName, async (temporary) => {
    try {
      await link(source, temporary);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another file system, or one without hard links: copy.
      if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK' && code !== 'ENOTSUP') {
        throw error;
      }
      await copyFile(source, temporary, constants.COPYFILE_EXCL);
    }
  });
}

/** Makes `dir/fileName` by `create` at a temporary name and a rename. */
async function placeSpoolFile(
  dir: string,
  fileName: string,
  create: (temporary: string) => Promise<void>,
): Promise<void> {
  const target = spoolFilePath(dir, fileName);
  const temporary = path.join(dir, `.${fileName}.${randomUUID()}.tmp`);
  try {
    try {
      await create(temporary);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // First write, or the folder was removed under a running api.
      await mkdir(dir, { recursive: true });
      await create(temporary);
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
