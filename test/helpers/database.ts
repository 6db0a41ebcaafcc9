import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type TestDialect = 'sqlite' | 'postgres';

/** Both databases the suite runs on. */
export const DIALECTS: readonly TestDialect[] = ['sqlite', 'postgres'];

export interface TestDatabase {
  dialect: TestDialect;
  /** Set for PostgreSQL. */
  databaseUrl: string | undefined;
  /** Data directory of the service (the SQLite file lives here). */
  dataDir: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) {
    throw new Error('TEST_POSTGRES_URL is not set: run the suite with `npm test`.');
  }
  return url;
}

/** A fresh, empty database of the given dialect, private to one test file. */
export async function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'awp-test-'));
  if (dialect === 'sqlite') {
    return {
      dialect,
      databaseUrl: undefined,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `awp_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    dialect,
    databaseUrl: url.toString(),
    dataDir,
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: adminUrl() });
      await client.connect();
      try {
        // `with (force)` ends our own sessions, but an autovacuum worker that happens to be
        // in the database belongs to the superuser and cannot be signalled by the test role
        // (42501); it leaves within moments, so the drop is retried for a few seconds.
        for (let attempt = 1; ; attempt++) {
          try {
            await client.query(`drop database if exists ${name} with (force)`);
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== '42501' || attempt >= 40) throw error;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
      } finally {
        await client.end();
      }
    },
  };
}
