import path from 'node:path';
import type { Config } from '../app/config.ts';

/**
 * Directory of stored audio on the local disk (`DATA_DIR/audio`): synthesized requests'
 * audio, Playground generations and session recordings. On one host the api, the jobs
 * process and the agent worker share it; a fleet stores audio in a bucket instead
 * (`STORAGE_URL`, see stores.ts).
 */
export function audioStorageDir(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'audio');
}

/** Directory of voice recordings on the local disk (`DATA_DIR/voice-samples`). */
export function sampleStorageDir(dataDir: string): string {
  return path.resolve(dataDir, 'voice-samples');
}
