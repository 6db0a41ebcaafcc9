import { createHash } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { QUEUE_NAMES, type SpoolQueueName } from './queues.ts';

/**
 * The name of the persistence queue of the spool folder `spoolDir`:
 * `audio-persistence-<id>`, the id drawn from the folder's identity on its file system
 * (device and inode). Every process that sees the folder (the api and the jobs process of
 * one host, or containers sharing a volume) gets the same name and shares the queue; a host
 * with a folder of its own gets a queue of its own, so its batches are drained only by a
 * process that can open its files. The hosts of a fleet thus need no shared file system:
 * each drains its own spool into the shared store (STORAGE_URL).
 */
export function spoolQueueName(spoolDir: string): SpoolQueueName {
  mkdirSync(spoolDir, { recursive: true });
  const { dev, ino } = statSync(spoolDir, { bigint: true });
  const id = createHash('sha256').update(`${dev}:${ino}`).digest('hex').slice(0, 16);
  return `${QUEUE_NAMES.audioPersistence}-${id}`;
}
