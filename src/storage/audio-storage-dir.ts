import path from 'node:path';
import type { Config } from '../config.ts';

/**
 * Directory of stored audio on the local disk (`DATA_DIR/audio`): synthesized requests'
 * audio, Playground generations and session recordings. The api, the jobs process and
 * the agent worker must see the same folder.
 */
export function audioStorageDir(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'audio');
}
