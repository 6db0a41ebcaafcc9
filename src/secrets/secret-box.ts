import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** File under DATA_DIR holding the generated key of a single-node deployment. */
export const SECRETS_KEY_FILE = 'secrets.key';

/** Thrown when a sealed value cannot be opened (wrong key, tampered, or malformed). */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * Seals credentials for storage: AES-256-GCM under a key derived (HKDF-SHA-256) from the
 * deployment's secrets key, with the owning record's id as associated data so a sealed
 * value copied to another record does not open. Values look like `v1.<iv>.<tag>.<data>`.
 *
 * @example
 * const box = SecretBox.fromConfig({ secretsKey: process.env.SECRETS_KEY, dataDir: './data' });
 * const sealed = box.seal('sk_live_...', 'pa_123');
 * box.open(sealed, 'pa_123'); // 'sk_live_...'
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(secret: string | Buffer) {
    const material = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
    if (material.byteLength < 32)
      throw new SecretBoxError('the secrets key needs 32 bytes or more');
    this.#key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), 'awp/secret-box/v1', 32));
  }

  /**
   * The box of this deployment: `secretsKey` when configured (required when several
   * processes on different machines share a database), otherwise a random key generated
   * once into `<dataDir>/secrets.key` (mode 0600).
   */
  static fromConfig(options: { secretsKey?: string | undefined; dataDir: string }): SecretBox {
    return new SecretBox(secretsKeyMaterial(options));
  }

  seal(plaintext: string, recordId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(recordId, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open(sealed: string, recordId: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || data === undefined) {
      throw new SecretBoxError('not a sealed value');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(recordId, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(data, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretBoxError('the sealed value does not open with this deployment’s secrets key');
    }
  }
}

/**
 * The deployment's secrets key: `secretsKey` when configured (required when several
 * processes on different machines share a database), otherwise a random key generated once
 * into `<dataDir>/secrets.key` (mode 0600) and read by every later process. The api, jobs
 * and worker processes of a new deployment start together: the key is written to a file of
 * its own and linked into place, so the file appears holding the whole key and the first
 * link wins.
 */
export function secretsKeyMaterial(options: {
  secretsKey?: string | undefined;
  dataDir: string;
}): Buffer {
  if (options.secretsKey) return Buffer.from(options.secretsKey, 'utf8');
  const file = path.join(options.dataDir, SECRETS_KEY_FILE);
  try {
    return readKeyFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(options.dataDir, { recursive: true });
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(draft, 0o600);
    linkSync(draft, file);
  } catch (error) {
    // Another process linked its key first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return readKeyFile(file);
}

function readKeyFile(file: string): Buffer {
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  if (key.byteLength < 32) throw new SecretBoxError(`${file} holds no key of 32 bytes or more`);
  return key;
}

/**
 * A secret for one purpose derived (HKDF-SHA-256, `label` as info) from the deployment's
 * secrets key, so every process of a deployment computes the same value without sharing
 * anything else. Distinct labels give unrelated secrets.
 */
export function derivedSecret(
  options: { secretsKey?: string | undefined; dataDir: string },
  label: string,
): string {
  const material = secretsKeyMaterial(options);
  return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), label, 32)).toString(
    'base64url',
  );
}
