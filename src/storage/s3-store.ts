import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  type AudioStore,
  assertSafeObjectKey,
  InvalidObjectKeyError,
  MissingSourceFileError,
} from './audio-store.ts';

/** Where a store's objects live: a bucket and a key prefix inside it (no leading or trailing `/`). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/**
 * An {@link AudioStore} on an S3-compatible object store (AWS S3, SeaweedFS, MinIO, R2), for
 * deployments of more than one host: every api, jobs and worker process reads and writes the
 * same bucket, and no process needs a shared file system. Objects live under
 * `{prefix}/{objectKey}`; a `PutObject` replaces an object whole, so readers never see a
 * part of one, as the interface asks.
 *
 * @example
 * ```ts
 * const store = new S3AudioStore(client, { bucket: 'awp', prefix: 'prod/audio' });
 * await store.putFile('org_1/2025/01/31/0195....ogg', spoolFile, 'audio/ogg');
 * ```
 */
export class S3AudioStore implements AudioStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(client: S3Client, location: S3Location) {
    this.#client = client;
    this.#bucket = location.bucket;
    this.#prefix = location.prefix === '' ? '' : `${location.prefix}/`;
  }

  async put(objectKey: string, audio: Buffer, contentType: string): Promise<{ location: string }> {
    const key = this.keyOf(objectKey);
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Body: audio,
        ContentType: contentType,
      }),
    );
    return { location: this.locationOf(key) };
  }

  async putFile(
    objectKey: string,
    sourcePath: string,
    contentType: string,
  ): Promise<{ location: string }> {
    const key = this.keyOf(objectKey);
    const size = await stat(sourcePath).then(
      (info) => info.size,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw new MissingSourceFileError(sourcePath);
        throw error;
      },
    );
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Body: createReadStream(sourcePath),
        ContentLength: size,
        ContentType: contentType,
      }),
    );
    // Another mover may have taken the source meanwhile; the object is in place either way.
    await unlink(sourcePath).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    return { location: this.locationOf(key) };
  }

  async head(objectKey: string): Promise<{ location: string } | null> {
    const key = this.keyOf(objectKey);
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return { location: this.locationOf(key) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async get(objectKey: string): Promise<Buffer | null> {
    const key = this.keyOf(objectKey);
    try {
      const object = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: key }),
      );
      if (!object.Body) return Buffer.alloc(0);
      return Buffer.from(await object.Body.transformToByteArray());
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(objectKey: string): Promise<boolean> {
    // S3 deletes are idempotent and do not say whether there was an object: ask first.
    if ((await this.head(objectKey)) === null) return false;
    await this.#client.send(
      new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.keyOf(objectKey) }),
    );
    return true;
  }

  async list(prefix: string): Promise<string[]> {
    if (!prefix.endsWith('/')) throw new InvalidObjectKeyError(prefix);
    const folder = this.keyOf(prefix.slice(0, -1));
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: `${folder}/`,
          ContinuationToken: token,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key) keys.push(object.Key.slice(this.#prefix.length));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  /** The bucket key of an object key; throws for keys that are not safe relative paths. */
  private keyOf(objectKey: string): string {
    assertSafeObjectKey(objectKey);
    return `${this.#prefix}${objectKey}`;
  }

  private locationOf(key: string): string {
    return `s3://${this.#bucket}/${key}`;
  }
}

/** Whether an S3 error says the object (or its key) does not exist. */
function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return (
    error.name === 'NoSuchKey' ||
    error.name === 'NotFound' ||
    error.$metadata.httpStatusCode === 404
  );
}
