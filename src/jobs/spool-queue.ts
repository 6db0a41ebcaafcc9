import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { QUEUE_NAMES, type SpoolQueueName } from './queues.ts';

/** The file in a spool folder naming its queue; processes that see the folder share it. */
const QUEUE_ID_FILE = '.queue-id';
const QUEUE_ID = /^[0-9a-f]{16}$/;

/**
 * The name of the persistence queue of the spool folder `spoolDir`: `audio-persistence-<id>`,
 * where the id is made once and kept in the folder. Every process that sees the folder (the
 * api and the jobs process of one host, or of hosts sharing a volume) reads the same id and
 * shares the queue; a host with its own folder gets its own queue, so its batches are
 * drained only by a process that can open its files. Hosts of a fleet thus need no shared
 * file system: each drains its own spool into the shared store (STORAGE_URL).
 */
export function spoolQueueName(spoolDir: string): SpoolQueueName {
  mkdirSync(spoolDir, { recursive: true });
  const file = path.join(spoolDir, QUEUE_ID_FILE);
  try {
    writeFileSync(file, randomBytes(8).toString('hex'), { flag: 'wx', mode: 0o644 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const id = readFileSync(file, 'utf8').trim();
  if (!QUEUE_ID.test(id)) throw new Error(`${file} does not hold a queue id; remove it`);
  return `${QUEUE_NAMES.audioPersistence}-${id}`;
}
