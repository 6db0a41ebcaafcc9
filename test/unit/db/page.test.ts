// The one cursor-paging helper: pages read with one row more, pages that end full, the
// `{time}~{id}` cursor format and the keyset filter after it, on both databases.
import { z } from 'zod';
import { type DatabaseHandle, openDatabase } from '../../../src/db/connect.ts';
import { fullPageCursor, lookahead, olderThan, takePage } from '../../../src/db/page.ts';
import { ApiError } from '../../../src/errors.ts';
import {
  decodePageCursor,
  encodePageCursor,
  pageCursorSchema,
  UUID_PATTERN,
} from '../../../src/http/page-cursor.ts';
import { validate } from '../../../src/http/validate.ts';
import {
  afterAll,
  beforeAll,
  describe,
  describeEachDialect,
  expect,
  it,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';

const ID = '0190aaaa-0000-7000-8000-000000000001';
const cursorOf = (row: { id: string }) => row.id;

describe('takePage', () => {
  it('shows `limit` rows and names the last when the lookahead row came back', () => {
    expect(lookahead(2)).toBe(3);
    expect(takePage([{ id: 'a' }, { id: 'b' }, { id: 'c' }], 2, cursorOf)).toEqual({
      rows: [{ id: 'a' }, { id: 'b' }],
      nextCursor: 'b',
    });
  });

  it('has no next cursor on the last page, full or not', () => {
    expect(takePage([{ id: 'a' }, { id: 'b' }], 2, cursorOf)).toEqual({
      rows: [{ id: 'a' }, { id: 'b' }],
      nextCursor: null,
    });
    expect(takePage([], 2, cursorOf)).toEqual({ rows: [], nextCursor: null });
  });
});

describe('fullPageCursor', () => {
  it('names the last row of a full page only', () => {
    expect(fullPageCursor([{ id: 'a' }, { id: 'b' }], 2, cursorOf)).toBe('b');
    expect(fullPageCursor([{ id: 'a' }], 2, cursorOf)).toBeNull();
    expect(fullPageCursor([], 2, cursorOf)).toBeNull();
  });
});

describe('page cursor format', () => {
  const position = { at: '2026-11-28T17:03:51.123Z', id: ID };
  const schema = z.strictObject({ cursor: pageCursorSchema(UUID_PATTERN, 'sessions') });

  it('encodes a position as `{time}~{id}` and decodes it back', () => {
    const cursor = encodePageCursor(position);
    expect(cursor).toBe(`2026-11-28T17:03:51.123Z~${ID}`);
    expect(decodePageCursor(cursor)).toEqual(position);
    expect(validate(schema, { cursor }, 'query')).toEqual({ cursor });
  });

  it('refuses any other cursor with invalid_request', () => {
    for (const cursor of [ID, '2026-11-28T17:03:51Z~' + ID, `2026-11-28T17:03:51.123Z~x`]) {
      let refusal: unknown;
      try {
        validate(schema, { cursor }, 'query');
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ApiError);
      expect((refusal as ApiError).code).toBe('invalid_request');
    }
  });
});

describeEachDialect('olderThan on %s', (dialect) => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    testDb = await databases.empty(dialect);
    handle = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
    await handle.db
      .insertInto('service_instances')
      .values([
        { instance_id: 'a', started_at: '2026-01-01T00:00:01.000Z', last_seen_at: 'x' },
        { instance_id: 'b', started_at: '2026-01-01T00:00:02.000Z', last_seen_at: 'x' },
        { instance_id: 'c', started_at: '2026-01-01T00:00:02.000Z', last_seen_at: 'x' },
        { instance_id: 'd', started_at: '2026-01-01T00:00:03.000Z', last_seen_at: 'x' },
      ])
      .execute();
  });
  afterAll(async () => {
    await handle.close();
  });

  it('compiles to older-than-or-same-time-and-smaller-id', () => {
    const mark = (n: number) => (dialect === 'postgres' ? `$${n}` : '?');
    const query = handle.db
      .selectFrom('service_instances as s')
      .select('s.instance_id')
      .where(olderThan({ at: 't', id: 'i' }, 's.started_at', 's.instance_id'))
      .compile();
    expect(query.sql).toBe(
      `select "s"."instance_id" from "service_instances" as "s" where ("s"."started_at" < ${mark(1)} or ("s"."started_at" = ${mark(2)} and "s"."instance_id" < ${mark(3)}))`,
    );
    expect(query.parameters).toEqual(['t', 't', 'i']);
  });

  it('keeps the rows after the position in newest-first order', async () => {
    const rows = await handle.db
      .selectFrom('service_instances')
      .select('instance_id')
      .where(olderThan({ at: '2026-01-01T00:00:02.000Z', id: 'c' }, 'started_at', 'instance_id'))
      .orderBy('started_at', 'desc')
      .orderBy('instance_id', 'desc')
      .execute();
    expect(rows.map((row) => row.instance_id)).toEqual(['b', 'a']);
  });
});
