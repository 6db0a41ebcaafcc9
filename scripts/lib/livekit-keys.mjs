// The API key pair of the local livekit-server that `npm start` runs, one per data folder:
// read from the key file given as the only argument, or created there on first use. The file
// is LiveKit's own key file (`livekit-server --key-file`, YAML `"key": "secret"`), mode 0600
// (LiveKit refuses a key file others may read). Prints `KEY SECRET` for the api and worker.
//   node scripts/lib/livekit-keys.mjs "$DATA_DIR/livekit/keys.yaml"
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const LINE = /^"([A-Za-z0-9_]+)":\s*"([A-Za-z0-9_-]{32,})"\s*$/;

/** The pair in `file`, creating the file with a fresh random pair when it is missing. */
export function livekitKeys(file) {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    const key = `APIawp${randomBytes(6).toString('hex')}`;
    const secret = randomBytes(32).toString('base64url');
    // 'wx': two starts racing on one data folder keep the first pair.
    try {
      writeFileSync(file, `"${key}": "${secret}"\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
  chmodSync(file, 0o600);
  const match = LINE.exec(readFileSync(file, 'utf8').trim());
  if (!match) throw new Error(`${file} does not hold one "key": "secret" line`);
  return { key: match[1], secret: match[2] };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node scripts/lib/livekit-keys.mjs KEY_FILE\n');
    process.exit(2);
  }
  const { key, secret } = livekitKeys(path.resolve(file));
  process.stdout.write(`${key} ${secret}\n`);
}
