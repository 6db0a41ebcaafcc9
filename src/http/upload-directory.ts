import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../observability/logger.ts';

/** Name prefix of every spooled upload (see `BodyReceiver.toFile`). */
export const UPLOAD_FILE_PREFIX = 'awp-upload-';
/**
 * A spooled upload older than this was left by a process that died: no request lasts a day,
 * and the folder may be shared by api processes that are alive.
 */
const STALE_MS = 24 * 3600 * 1000;

/** Creates the folder of spooled uploads and removes the stale files a crash left there. */
export async function prepareUploadDirectory(dir: string, logger: Logger): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let removed = 0;
  for (const name of await readdir(dir)) {
    if (!name.startsWith(UPLOAD_FILE_PREFIX)) continue;
    const file = path.join(dir, name);
    const old = await stat(file).then(
      (info) => Date.now() - info.mtimeMs > STALE_MS,
      () => false,
    );
    if (!old) continue;
    await rm(file, { force: true });
    removed += 1;
  }
  if (removed > 0) logger.info({ dir, files: removed }, 'removed stale spooled uploads');
}
