// The operator API's Usage lists (the dashboard's Config › Usage page) against a real api on
// both databases: synthesis requests and language-model calls written to the ledgers,
// paged newest first with `next_cursor` (exact pages, the request id breaking a tie of
// created_at across a page boundary), the first page and its cursor in GET /usage, the page
// size bounds, cursors of another workspace, environment or list refused, and the roles.

import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../../../src/app/config.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  addOperator,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { OperatorClient } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({}) });

const VOICE = 'voice_en0ITv6xOZPfMiT0sGIW';
/** Rows of each list in the workspace's production environment: more than one page of 50. */
const ROWS = 53;
const T0 = Date.parse('2025-03-01T09:00:00.000Z');

interface Seeded {
  requestId: string;
  createdAt: string;
}

/** Newest first in (created_at, request_id) order, as the lists sort. */
const newestFirst = (rows: Seeded[]) =>
  [...rows]
    .sort((a, b) =>
      a.createdAt === b.createdAt
        ? a.requestId < b.requestId
          ? 1
          : -1
        : a.createdAt < b.createdAt
          ? 1
          : -1,
    )
    .map((row) => row.requestId);

/**
 * Creation times of `count` rows, oldest first, one second apart, except that the rows at
 * 20th and 21st place newest first share one: a page of 20 ends between them.
 */
function createdTimes(count: number): string[] {
  const times = Array.from({ length: count }, (_, i) => new Date(T0 + i * 1_000).toISOString());
  times[count - 21] = times[count - 20] as string;
  return times;
}

describeEachDialect('operator API Usage lists on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let builder: OperatorClient;
  let requests: string[];
  let calls: string[];
  /** A row of each list outside the workspace's production environment. */
  const foreign: Record<'otherWorkspace' | 'development', { request: string; call: string }> = {
    otherWorkspace: { request: '', call: '' },
    development: { request: '', call: '' },
  };

  /** A closed synthesis request as the ledger writes it, at `createdAt`. */
  const insertRequest = async (
    workspace: SeededWorkspace,
    environment: Environment,
    createdAt: string,
    chars: number,
  ) => {
    const requestId = uuidv7();
    await handle.db
      .insertInto('synthesis_requests')
      .values({
        request_id: requestId,
        audit_id: `aud_${requestId}`,
        workspace_id: workspace.workspaceId,
        environment,
        api_key_id:
          environment === 'production' ? workspace.productionKeyId : workspace.developmentKeyId,
        transport: 'http',
        voice_id: VOICE,
        route: 'test',
        output_format: 'mp3_44100_128',
        chars_requested: chars,
        chars_synthesized: chars,
        price_millicredits_per_1k_chars: 50_000,
        reserved_millicredits: 0,
        cost_millicredits: chars * 50,
        pass_through: 0,
        status: 'succeeded',
        instance_id: 'usage-test',
        created_at: createdAt,
        finished_at: createdAt,
      })
      .execute();
    return requestId;
  };

  /** A closed language-model call as the ledger writes it, at `createdAt`. */
  const insertCall = async (
    workspace: SeededWorkspace,
    environment: Environment,
    createdAt: string,
    tokens: number,
  ) => {
    const requestId = uuidv7();
    await handle.db
      .insertInto('llm_requests')
      .values({
        request_id: requestId,
        audit_id: `aud_${requestId}`,
        workspace_id: workspace.workspaceId,
        environment,
        api_key_id: null,
        source: 'messages',
        agent_id: 'agt_gone',
        publication_id: 'pub_gone',
        llm_provider: 'openai',
        llm_model: 'gpt-4.1-mini',
        input_price_millicredits_per_1m: 1e6,
        output_price_millicredits_per_1m: 1e6,
        reserved_millicredits: 0,
        cost_millicredits: tokens * 2,
        input_tokens: tokens,
        output_tokens: tokens,
        status: 'succeeded',
        instance_id: 'usage-test',
        created_at: createdAt,
        finished_at: createdAt,
      })
      .execute();
    return requestId;
  };

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      other = await seedWorkspace(handle);
      for (const role of ['owner', 'admin', 'builder', 'member'] as const) {
        await addOperator(handle.db, ws, { role });
      }
      const seededRequests: Seeded[] = [];
      const seededCalls: Seeded[] = [];
      const times = createdTimes(ROWS);
      for (const [i, createdAt] of times.entries()) {
        const request = await insertRequest(ws, 'production', createdAt, 10 + i);
        seededRequests.push({ requestId: request, createdAt });
        const call = await insertCall(ws, 'production', createdAt, 100 + i);
        seededCalls.push({ requestId: call, createdAt });
      }
      // The same moment elsewhere: never listed here, and no cursor here.
      const at = times.at(-1) as string;
      foreign.otherWorkspace.request = await insertRequest(other, 'production', at, 5);
      foreign.otherWorkspace.call = await insertCall(other, 'production', at, 5);
      foreign.development.request = await insertRequest(ws, 'development', at, 5);
      foreign.development.call = await insertCall(ws, 'development', at, 5);
      requests = newestFirst(seededRequests);
      calls = newestFirst(seededCalls);
      server = await apis.start(database);
      builder = await signInAs(server.url, 'builder@example.com');
    },
    budget({ servers: 1 }),
  );

  const LISTS = [
    { path: '/usage/requests', field: 'requests', ids: () => requests, kind: 'request' },
    { path: '/usage/model-calls', field: 'model_calls', ids: () => calls, kind: 'call' },
  ] as const;

  /** Every page of a list at `limit`, following `next_cursor` to its end. */
  const walk = async (path: string, field: string, limit: number) => {
    const pages: { ids: string[]; next: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
      const response = await builder.request('GET', `${path}?${query}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = response.body as Record<string, unknown> & { next_cursor: string | null };
      expect(Object.keys(body).sort()).toEqual([field, 'next_cursor'].sort());
      const rows = body[field] as { request_id: string }[];
      pages.push({ ids: rows.map((row) => row.request_id), next: body.next_cursor });
      cursor = body.next_cursor;
      expect(pages.length).toBeLessThanOrEqual(ROWS + 1);
    } while (cursor !== null);
    return pages;
  };

  it.each(LISTS)(
    'pages $path exactly, newest first, the request id breaking ties',
    async (list) => {
      const all = list.ids();
      expect(all).toHaveLength(ROWS);
      // Page size 20 ends between the two rows created at the same moment.
      const pages = await walk(list.path, list.field, 20);
      expect(pages.map((page) => page.ids)).toEqual([
        all.slice(0, 20),
        all.slice(20, 40),
        all.slice(40),
      ]);
      expect(pages.map((page) => page.next)).toEqual([all[19], all[39], null]);
      // A page that ends exactly at the last row is full: its cursor leads to an empty page.
      const exact = await walk(list.path, list.field, ROWS);
      expect(exact).toEqual([
        { ids: all, next: all.at(-1) },
        { ids: [], next: null },
      ]);
      // The default page is 50, the rest follows.
      const first = await builder.request('GET', list.path);
      const body = first.body as Record<string, { request_id: string }[]> & { next_cursor: string };
      expect(body[list.field]?.map((row) => row.request_id)).toEqual(all.slice(0, 50));
      expect(body.next_cursor).toBe(all[49]);
      const rest = await builder.request('GET', `${list.path}?cursor=${body.next_cursor}`);
      expect(rest.body).toMatchObject({ next_cursor: null });
      expect(
        (rest.body as Record<string, { request_id: string }[]>)[list.field]?.map(
          (row) => row.request_id,
        ),
      ).toEqual(all.slice(50));
    },
  );

  it('answers the first page of each list in GET /usage, with the same items and cursors', async () => {
    const usage = await builder.request('GET', '/usage');
    expect(usage.status).toBe(200);
    expect(usage.headers.get('cache-control')).toBe('no-store');
    const body = usage.body as Record<string, unknown>;
    expect(body.requests_next_cursor).toBe(requests[49]);
    expect(body.model_calls_next_cursor).toBe(calls[49]);
    const page = await builder.request('GET', '/usage/requests');
    expect(body.requests).toEqual((page.body as { requests: unknown }).requests);
    const callPage = await builder.request('GET', '/usage/model-calls');
    expect(body.model_calls).toEqual((callPage.body as { model_calls: unknown }).model_calls);

    // The newest rows, item by item.
    const prefix = await handle.db
      .selectFrom('api_keys')
      .select('display_prefix')
      .where('id', '=', ws.productionKeyId)
      .executeTakeFirstOrThrow();
    expect((body.requests as unknown[])[0]).toEqual({
      request_id: requests[0],
      created_at: new Date(T0 + (ROWS - 1) * 1_000).toISOString(),
      voice_id: VOICE,
      characters: 10 + ROWS - 1,
      credits: ((10 + ROWS - 1) * 50) / 1_000,
      status: 'succeeded',
      caller: `key:${prefix.display_prefix}`,
    });
    expect((body.model_calls as unknown[])[0]).toEqual({
      request_id: calls[0],
      created_at: new Date(T0 + (ROWS - 1) * 1_000).toISOString(),
      agent_id: 'agt_gone',
      agent_slug: null,
      source: 'messages',
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      input_tokens: 100 + ROWS - 1,
      output_tokens: 100 + ROWS - 1,
      credits: ((100 + ROWS - 1) * 2) / 1_000,
      status: 'succeeded',
      caller: null,
    });
  });

  it.each(LISTS)('bounds the page size of $path and refuses unknown parameters', async (list) => {
    for (const query of ['limit=0', 'limit=101', 'limit=two', 'page=2', 'cursor=']) {
      const refused = await builder.request('GET', `${list.path}?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body).toMatchObject({ code: 'invalid_request' });
    }
    for (const limit of [1, 100]) {
      const answered = await builder.request('GET', `${list.path}?limit=${limit}`);
      expect(answered.status).toBe(200);
      expect((answered.body as Record<string, unknown[]>)[list.field]).toHaveLength(
        Math.min(limit, ROWS),
      );
    }
  });

  it.each(LISTS)('refuses a cursor that names no row of $path here', async (list) => {
    const own =
      list.kind === 'request' ? foreign.otherWorkspace.request : foreign.otherWorkspace.call;
    const dev = list.kind === 'request' ? foreign.development.request : foreign.development.call;
    // The other list's newest row, another workspace's, another environment's, none.
    const otherList = list.kind === 'request' ? calls[0] : requests[0];
    for (const cursor of [own, dev, otherList, uuidv7()]) {
      const refused = await builder.request('GET', `${list.path}?cursor=${cursor}`);
      expect(refused.status, cursor).toBe(400);
      expect(refused.body).toMatchObject({ code: 'invalid_request' });
    }
    // The development listener lists that environment's row only, and refuses this one's.
    const development = await signInAs(server.devUrl, 'builder@example.com');
    const listed = await development.request('GET', list.path);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      [list.field]: [expect.objectContaining({ request_id: dev })],
      next_cursor: null,
    });
    const refused = await development.request('GET', `${list.path}?cursor=${list.ids()[0]}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_request' });
  });

  it('answers Owner, Admin and Builder; a Member gets 403', async () => {
    for (const role of ['owner', 'admin', 'builder']) {
      const client = await signInAs(server.url, `${role}@example.com`);
      for (const list of LISTS) {
        expect((await client.request('GET', `${list.path}?limit=1`)).status, role).toBe(200);
      }
    }
    const member = await signInAs(server.url, 'member@example.com');
    for (const path of ['/usage', '/usage/requests', '/usage/model-calls']) {
      const refused = await member.request('GET', path);
      expect(refused.status, path).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    }
  });
});
