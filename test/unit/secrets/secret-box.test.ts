import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SECRETS_KEY_FILE,
  SecretBox,
  SecretBoxError,
  secretsKeyMaterial,
} from '../../../src/secrets/secret-box.ts';

const KEY = 'sk_live_0123456789abcdefghijklmnopqrstuvwxyz';

describe('SecretBox', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'awp-secrets-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('seals to a value without the plaintext and opens it for the same record only', () => {
    const box = new SecretBox('a deployment secrets key of at least 32 chars');
    const sealed = box.seal(KEY, 'pa_1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(KEY);
    expect(sealed).not.toContain(Buffer.from(KEY).toString('base64url').slice(0, 12));
    expect(box.seal(KEY, 'pa_1')).not.toBe(sealed);
    expect(box.open(sealed, 'pa_1')).toBe(KEY);
    expect(() => box.open(sealed, 'pa_2')).toThrow(SecretBoxError);
  });

  it('refuses a tampered value, another key, a malformed value and a short key', () => {
    const box = new SecretBox('a deployment secrets key of at least 32 chars');
    const sealed = box.seal(KEY, 'pa_1');
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3]!, 'base64url');
    data[0] = data[0]! ^ 1;
    parts[3] = data.toString('base64url');
    expect(() => box.open(parts.join('.'), 'pa_1')).toThrow(SecretBoxError);
    const other = new SecretBox('another deployment secrets key, 32+ chars');
    expect(() => other.open(sealed, 'pa_1')).toThrow(SecretBoxError);
    expect(() => box.open('plain-text-key', 'pa_1')).toThrow(SecretBoxError);
    expect(() => new SecretBox('too short')).toThrow(SecretBoxError);
  });

  it('generates one private key file under the data directory and reuses it', () => {
    const dir = tempDir();
    const first = SecretBox.fromConfig({ dataDir: dir });
    const file = path.join(dir, SECRETS_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const contents = readFileSync(file, 'utf8');
    const second = SecretBox.fromConfig({ dataDir: dir });
    expect(readFileSync(file, 'utf8')).toBe(contents);
    expect(second.open(first.seal(KEY, 'pa_1'), 'pa_1')).toBe(KEY);
  });

  it('gives processes that start together on a fresh data directory one whole key', async () => {
    // The api, jobs and worker processes of a new single-node deployment start at once:
    // none may read the key file before it holds the whole key.
    const moduleUrl = new URL('../../../src/secrets/secret-box.ts', import.meta.url).href;
    const run = promisify(execFile);
    for (let round = 0; round < 5; round++) {
      const dir = tempDir();
      const startAt = Date.now() + 1500;
      const script = `
        const { secretsKeyMaterial } = await import(${JSON.stringify(moduleUrl)});
        while (Date.now() < ${startAt});
        process.stdout.write(secretsKeyMaterial({ dataDir: ${JSON.stringify(dir)} }).toString('hex'));
      `;
      const keys = await Promise.all(
        Array.from({ length: 6 }, () =>
          run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]).then(
            (out) => out.stdout,
          ),
        ),
      );
      const key = secretsKeyMaterial({ dataDir: dir }).toString('hex');
      expect(key).toHaveLength(64);
      expect(keys).toEqual(Array(6).fill(key));
      // Nothing but the key file is left behind.
      expect(readdirSync(dir)).toEqual([SECRETS_KEY_FILE]);
    }
  }, 60_000);

  it('uses the configured key over the file', () => {
    const dir = tempDir();
    const configured = 'a deployment secrets key of at least 32 chars';
    const sealed = SecretBox.fromConfig({ dataDir: dir, secretsKey: configured }).seal(KEY, 'x');
    expect(new SecretBox(configured).open(sealed, 'x')).toBe(KEY);
    expect(() => SecretBox.fromConfig({ dataDir: dir }).open(sealed, 'x')).toThrow(SecretBoxError);
  });
});
