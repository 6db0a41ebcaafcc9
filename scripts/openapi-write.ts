// `npm run openapi:write`: writes docs/openapi.json from the code, without a server, and the
// server library's types from it (backend-sdk/src/generated/openapi.ts). The
// document depends on the routes' schemas only (never on configuration), so the api is
// wired with a fixed minimal configuration, a throwaway SQLite database and a Redis client
// that never connects; nothing listens and nothing is called.
//
// `--check` writes nothing and exits 1 when either file differs from what the code generates.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { apiDocument, createApi } from '../src/app/app.ts';
import { loadConfig } from '../src/app/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { createLogger } from '../src/observability/logger.ts';
import { loadSttConfig } from '../src/stt/config.ts';
import {
  OPENAPI_FILE,
  openApiTypes,
  SDK_TYPES_FILE,
  serializeOpenApiDocument,
} from './openapi-file.ts';

async function generate(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'awp-openapi-'));
  const env = { DATA_DIR: dataDir, NATIVE_NEURAL_VOICES: 'false', LOCAL_LLM: 'false' };
  const handle = await openDatabase({ databaseUrl: undefined, dataDir });
  const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
  const api = createApi({
    config: loadConfig(env),
    sttConfig: loadSttConfig(env),
    db: handle.db,
    redis,
    logger: createLogger('silent'),
  });
  try {
    return serializeOpenApiDocument(apiDocument(api.routes));
  } finally {
    await api.close();
    redis.disconnect();
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const documentText = await generate();
const files = [
  { file: OPENAPI_FILE, text: documentText },
  { file: SDK_TYPES_FILE, text: await openApiTypes(documentText) },
];
if (process.argv.includes('--check')) {
  let stale = false;
  for (const { file, text } of files) {
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (committed === text) {
      console.log(`${file} matches the code`);
    } else {
      console.error(`${file} differs from the code: run \`npm run openapi:write\``);
      stale = true;
    }
  }
  if (stale) process.exit(1);
} else {
  for (const { file, text } of files) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    console.log(`wrote ${file}`);
  }
}
