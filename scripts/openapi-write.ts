// `npm run openapi:write`: writes docs/openapi.json from the code, without a server. The
// document depends on the routes' schemas only (never on configuration), so the api is
// wired with a fixed minimal configuration, a throwaway SQLite database and a Redis client
// that never connects; nothing listens and nothing is called.
//
// `--check` writes nothing and exits 1 when docs/openapi.json differs from the code.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { apiDocument, createApi } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { createLogger } from '../src/observability/logger.ts';
import { loadSttConfig } from '../worker/stt/config.ts';
import { OPENAPI_FILE, serializeOpenApiDocument } from './openapi-file.ts';

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

const text = await generate();
if (process.argv.includes('--check')) {
  const committed = readFileSync(OPENAPI_FILE, 'utf8');
  if (committed !== text) {
    console.error(`${OPENAPI_FILE} differs from the code: run \`npm run openapi:write\``);
    process.exit(1);
  }
  console.log(`${OPENAPI_FILE} matches the code`);
} else {
  writeFileSync(OPENAPI_FILE, text);
  console.log(`wrote ${OPENAPI_FILE}`);
}
