import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import type { AudioStore } from './audio-store.ts';
import type { LocalDiskAudioStore } from './local-disk-store.ts';

export interface CopyReport {
  /** Objects written to the target. */
  copied: number;
  /** Objects the target already held (a copy run again resumes where it stopped). */
  skipped: number;
  bytes: number;
}

/**
 * Copies every object of a local store into `target` under the same key, for a deployment
 * that moves from one host's disk to a bucket. Objects the target already has are skipped,
 * so an interrupted copy is finished by running it again. The local store is left as it
 * was; remove it once the fleet runs on the bucket.
 */
export async function copyLocalStore(
  source: LocalDiskAudioStore,
  target: AudioStore,
): Promise<CopyReport> {
  const report: CopyReport = { copied: 0, skipped: 0, bytes: 0 };
  for (const folder of await topFolders(source.rootDir)) {
    for (const key of await source.list(`${folder}/`)) {
      if ((await target.head(key)) !== null) {
        report.skipped += 1;
        continue;
      }
      const audio = await source.get(key);
      if (audio === null) continue; // removed meanwhile (retention, erasure)
      await target.put(key, audio, COPIED_CONTENT_TYPE);
      report.copied += 1;
      report.bytes += audio.length;
    }
  }
  return report;
}

async function topFolders(rootDir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(rootDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
}

/**
 * The content type given to copied objects. Nothing reads a stored object's content type
 * back: the key's extension names its format, as on the local disk, which keeps none.
 */
const COPIED_CONTENT_TYPE = 'application/octet-stream';
