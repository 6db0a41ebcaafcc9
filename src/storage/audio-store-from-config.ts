import type { Config } from '../config.ts';
import { audioStorageDir } from './audio-storage-dir.ts';
import type { AudioStore } from './audio-store.ts';
import { LocalDiskAudioStore } from './local-disk-store.ts';

/**
 * The deployment's audio store, chosen by its configuration: the one constructor the api,
 * the jobs process and the agent worker call, so all three read and write the same objects
 * (synthesized audio, Playground generations, session recordings). Local disk under
 * `DATA_DIR/audio` is the only backend today; an S3-compatible one is chosen here when
 * it exists, and no caller changes.
 */
export function audioStoreFromConfig(config: Pick<Config, 'DATA_DIR'>): AudioStore {
  return new LocalDiskAudioStore(audioStorageDir(config));
}
