import { getOutputFormatInfo, type OutputFormat } from '../../media/formats.ts';

/**
 * Where synthesized audio is kept after a request ends. One interface, one implementation
 * per backend: {@link LocalDiskAudioStore} today (single node, the embedded default); an
 * S3-compatible store (AWS S3, MinIO, R2) implements the same methods later, so the
 * jobs that persist audio never learn which backend they write to.
 *
 * Object keys are relative, `/`-separated paths built by {@link audioObjectKey}; every
 * implementation rejects keys that could escape its root (see {@link assertSafeObjectKey}).
 *
 * @example
 * ```ts
 * const key = audioObjectKey({ workspaceId, requestId, extension: 'mp3', createdAt });
 * const { location } = await store.put(key, audio, 'audio/mpeg');
 * ```
 */
export interface AudioStore {
  /**
   * Stores `audio` under `objectKey`, replacing any object already there. Writes are
   * atomic: a concurrent `get` sees the old object or the whole new one, never a part.
   * `location` names the stored object for the backend (a `file://` URL, later `s3://`).
   */
  put(objectKey: string, audio: Buffer, contentType: string): Promise<{ location: string }>;
  /**
   * Moves the local file `sourcePath` into the store under `objectKey`, replacing any object
   * already there, atomically like {@link AudioStore.put}; the source file is gone once it
   * resolves. Throws {@link MissingSourceFileError} when `sourcePath` does not exist (a
   * retry after an earlier call already moved it: see {@link AudioStore.head}).
   */
  putFile(
    objectKey: string,
    sourcePath: string,
    contentType: string,
  ): Promise<{ location: string }>;
  /** The location of the object under `objectKey`, or null when there is none. */
  head(objectKey: string): Promise<{ location: string } | null>;
  /** The stored bytes, or null when no object has this key. */
  get(objectKey: string): Promise<Buffer | null>;
  /** Removes the object; false when there was none. */
  delete(objectKey: string): Promise<boolean>;
  /**
   * The keys of every stored object under `prefix` (a folder: a safe key followed by `/`),
   * sorted: what erasure and its tests check. Objects being written are not listed.
   */
  list(prefix: string): Promise<string[]>;
}

/** Thrown by {@link AudioStore.putFile} when the file to move does not exist. */
export class MissingSourceFileError extends Error {
  constructor(readonly sourcePath: string) {
    super(`no file to store at ${sourcePath}`);
    this.name = 'MissingSourceFileError';
  }
}

/** Thrown for an object key that is empty, absolute or climbs out of the store's root. */
export class InvalidObjectKeyError extends Error {
  constructor(readonly objectKey: string) {
    super(`invalid object key: ${JSON.stringify(objectKey)}`);
    this.name = 'InvalidObjectKeyError';
  }
}

/**
 * Throws {@link InvalidObjectKeyError} unless `objectKey` is a relative `/`-separated path
 * whose segments are non-empty and neither `.` nor `..`. Backslashes, drive letters and NUL
 * are rejected too, so a key means the same on every platform and backend.
 */
export function assertSafeObjectKey(objectKey: string): void {
  if (
    objectKey === '' ||
    objectKey.startsWith('/') ||
    objectKey.includes('\\') ||
    objectKey.includes('\0') ||
    /^[a-zA-Z]:/.test(objectKey)
  ) {
    throw new InvalidObjectKeyError(objectKey);
  }
  for (const segment of objectKey.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new InvalidObjectKeyError(objectKey);
    }
  }
}

/** What names one request's audio. */
export interface AudioObjectKeyParts {
  workspaceId: string;
  requestId: string;
  /** File extension without the dot: `mp3`, `wav`, `ogg`. */
  extension: string;
  /** The day the object is filed under, in UTC. */
  createdAt: Date;
}

/**
 * The object key of one request's audio: `{workspaceId}/{yyyy}/{mm}/{dd}/{requestId}.{ext}`
 * with the date in UTC. Throws {@link InvalidObjectKeyError} when a part holds a `/`, is
 * empty or would form a `.`/`..` segment.
 */
export function audioObjectKey(parts: AudioObjectKeyParts): string {
  const { workspaceId, requestId, extension, createdAt } = parts;
  const yyyy = String(createdAt.getUTCFullYear()).padStart(4, '0');
  const mm = String(createdAt.getUTCMonth() + 1).padStart(2, '0');
  const dd = String(createdAt.getUTCDate()).padStart(2, '0');
  const key = `${workspaceId}/${yyyy}/${mm}/${dd}/${requestId}.${extension}`;
  if (
    [workspaceId, requestId, extension].some((part) => part === '' || part.includes('/')) ||
    Number.isNaN(createdAt.getTime())
  ) {
    throw new InvalidObjectKeyError(key);
  }
  assertSafeObjectKey(key);
  return key;
}

/** File extension of each codec's stored audio: raw PCM, ADTS AAC, Ogg Opus. */
const FILE_EXTENSIONS = { pcm: 'pcm', aac: 'aac', opus: 'ogg' } as const;

/** Every extension {@link audioFileExtension} returns. */
export const AUDIO_FILE_EXTENSIONS: readonly string[] = Object.values(FILE_EXTENSIONS);

/** The file extension (no dot) of audio in `format`, for object keys and file names. */
export function audioFileExtension(format: OutputFormat): string {
  return FILE_EXTENSIONS[getOutputFormatInfo(format).codec];
}
