import { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../app/config.ts';
import { audioStorageDir, sampleStorageDir } from './audio-storage-dir.ts';
import type { AudioStore } from './audio-store.ts';
import { LocalDiskAudioStore } from './local-disk-store.ts';
import { S3AudioStore, type S3Location } from './s3-store.ts';

export type StorageConfig = Pick<
  Config,
  | 'DATA_DIR'
  | 'STORAGE_URL'
  | 'S3_ENDPOINT'
  | 'S3_REGION'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
>;

/** The stores of one deployment: synthesized audio with session recordings, and voice samples. */
export interface AudioStores {
  audio: AudioStore;
  samples: AudioStore;
}

/**
 * The deployment's stores, chosen by configuration: the local disk under DATA_DIR (the
 * embedded default, one host), or the bucket of `STORAGE_URL` (`audio/` and `samples/`
 * under its prefix), shared by every api, jobs and worker process of a fleet. Every process
 * gets its stores here, so they all agree on where an object lives.
 */
export function openAudioStores(config: StorageConfig): AudioStores {
  if (!config.STORAGE_URL) {
    return {
      audio: new LocalDiskAudioStore(audioStorageDir(config)),
      // A recording exists only here once its upload was answered: flushed before the answer.
      samples: new LocalDiskAudioStore(sampleStorageDir(config.DATA_DIR), { syncWrites: true }),
    };
  }
  const { bucket, prefix } = parseStorageUrl(config.STORAGE_URL);
  const client = s3Client(config);
  const under = (folder: string): S3Location => ({
    bucket,
    prefix: prefix === '' ? folder : `${prefix}/${folder}`,
  });
  return {
    audio: new S3AudioStore(client, under('audio')),
    samples: new S3AudioStore(client, under('samples')),
  };
}

/** `s3://bucket/some/prefix/` -> `{bucket, prefix: 'some/prefix'}`. */
export function parseStorageUrl(url: string): S3Location {
  const parsed = new URL(url);
  if (parsed.protocol !== 's3:' || parsed.hostname === '') {
    throw new Error(`STORAGE_URL must be s3://bucket[/prefix], got ${url}`);
  }
  const prefix = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, '');
  return { bucket: parsed.hostname, prefix };
}

const clients = new Map<string, S3Client>();

/** One client (and connection pool) per set of S3 settings in a process. */
function s3Client(config: StorageConfig): S3Client {
  const settings = {
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE ?? config.S3_ENDPOINT !== undefined,
  };
  const id = JSON.stringify(settings);
  let client = clients.get(id);
  if (!client) {
    client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId && settings.secretAccessKey
        ? {
            credentials: {
              accessKeyId: settings.accessKeyId,
              secretAccessKey: settings.secretAccessKey,
            },
          }
        : {}),
    });
    clients.set(id, client);
  }
  return client;
}
