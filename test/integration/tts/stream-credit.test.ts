import pg from 'pg';
import { CreditGrants } from '../../../src/billing/grants.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { creditAccount, grantedMillicredits, waitUntil } from '../../helpers/credit.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { openStream, type StreamClient, streamUrl } from '../../helpers/stream.ts';

const VOICE = NATIVE_VOICES[0]!.id;
const START = { voice_id: VOICE, output_format: 'pcm_24000' };
/** 100 characters: 1,000 millicredits at the default 10 credits per 1,000 characters. */
const TEXT_100 =
  'This sentence has been written so that it is exactly one hundred characters long for credit tests!!!';
const SEED_CREDITS = 100_000;
const SEEDED = SEED_CREDITS * 1000;

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachDialect('stream credit when clients leave at any moment on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get(dialect));
    server = await apis.start(database, {
      env: { TTS_RATE_LIMIT_PER_MINUTE: '0', STREAM_MAX_CONCURRENT_PER_WORKSPACE: '0' },
    });
  });

  const open = (ws: SeededWorkspace) =>
    openStream(streamUrl(server.url), { authorization: `Bearer ${ws.productionKey}` });

  const openRow = async (workspaceId: string) => {
    let requestId: string | undefined;
    await waitUntil(async () => {
      const row = await handle.db
        .selectFrom('synthesis_requests')
        .select('request_id')
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', 'started')
        .executeTakeFirst();
      requestId = row?.request_id;
      return row !== undefined;
    });
    return requestId as string;
  };

  const rowStatus = async (requestId: string) =>
    (
      await handle.db
        .selectFrom('synthesis_requests')
        .select('status')
        .where('request_id', '=', requestId)
        .executeTakeFirstOrThrow()
    ).status;

  it('refunds the reservation of a text event in flight when the client disconnects', async () => {
    const ws = await seedWorkspace(handle, { credits: SEED_CREDITS });
    const client = await open(ws);
    client.send({ event: 'start', request: START });
    const requestId = await openRow(ws.workspaceId).catch((error: unknown) => {
      throw new Error(
        `no ledger row; socket state ${client.socket.readyState}, events ${JSON.stringify(client.events)}; server:\n${server.output().slice(-3000)}`,
        { cause: error },
      );
    });

    // On PostgreSQL another transaction holds the workspace row, so the reservation of the
    // text event waits mid-flight while the client goes away. SQLite has one writer per
    // process and cannot be held from outside without stalling the server: there the text
    // and the disconnect only follow each other as closely as a client can make them.
    let blocker: pg.Client | undefined;
    if (dialect === 'postgres') {
      blocker = new pg.Client({ connectionString: database.databaseUrl });
      await blocker.connect();
      await blocker.query('begin');
      await blocker.query('select 1 from workspaces where id = $1 for update', [ws.workspaceId]);
    }
    client.send({ event: 'text', text: TEXT_100 });
    if (blocker) {
      await waitUntil(
        async () => {
          const waiting = await blocker.query(
            `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock'`,
          );
          return waiting.rows[0].n > 0;
        },
        10_000,
        'the reservation to wait for the workspace row',
      );
    }
    client.socket.terminate();
    if (blocker) {
      // Give the server time to close the row while the reservation still waits.
      await waitUntil(async () => (await rowStatus(requestId)) !== 'started', 1500).catch(() => {});
      await blocker.query('commit');
      await blocker.end();
    }
    await waitUntil(async () => (await rowStatus(requestId)) !== 'started');
    await waitUntil(async () => (await creditAccount(handle, ws.workspaceId)).open === 0);
    // Let a reservation that was still running land (it must not).
    await sleep(200);
    expect(await rowStatus(requestId)).toBe('cancelled');
    expect(await creditAccount(handle, ws.workspaceId)).toEqual({
      balance: SEEDED,
      charged: 0,
      open: 0,
      openRows: 0,
    });
  });

  // A client usually sends `start`, its text and `stop` in one write, and an agent sends
  // text in bursts: events that arrive together share one reservation. The amounts held,
  // charged and refunded must be exact however they were grouped.
  const statusOf = async (workspaceId: string) =>
    await handle.db
      .selectFrom('synthesis_requests')
      .select(['status', 'error_code', 'chars_requested'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();

  it('holds exactly the cost of the text sent with start, and refunds all of it when the client leaves', async () => {
    const ws = await seedWorkspace(handle, { credits: 10 });
    const client = await open(ws);
    client.send({ event: 'start', request: START });
    client.send({ event: 'text', text: 'x'.repeat(300) });
    client.send({ event: 'text', text: 'y'.repeat(200) });
    await waitUntil(
      async () => (await creditAccount(handle, ws.workspaceId)).open === 5000,
      10_000,
      'both text events reserved',
    );
    expect(await creditAccount(handle, ws.workspaceId)).toEqual({
      balance: 5000,
      charged: 0,
      open: 5000,
      openRows: 1,
    });
    client.socket.terminate();
    await waitUntil(async () => (await creditAccount(handle, ws.workspaceId)).openRows === 0);
    expect((await statusOf(ws.workspaceId)).status).toBe('cancelled');
    expect(await creditAccount(handle, ws.workspaceId)).toEqual({
      balance: 10_000,
      charged: 0,
      open: 0,
      openRows: 0,
    });
  });

  it('refuses a burst of text the balance cannot cover with insufficient_credit, charging nothing', async () => {
    // 1 credit covers 100 characters; the two events together are 120.
    const ws = await seedWorkspace(handle, { credits: 1 });
    const client = await open(ws);
    client.send({ event: 'start', request: START });
    client.send({ event: 'text', text: 'x'.repeat(60) });
    client.send({ event: 'text', text: 'y'.repeat(60) });
    client.send({ event: 'stop' });
    await client.closed;
    expect(client.events.map((event) => [event.event, event.code])).toEqual([
      ['error', 'insufficient_credit'],
    ]);
    // The error goes out at once; the row closes once the session has stopped.
    await waitUntil(
      async () => (await statusOf(ws.workspaceId)).status !== 'started',
      10_000,
      'the row closed',
    );
    expect(await statusOf(ws.workspaceId)).toMatchObject({
      status: 'failed',
      error_code: 'insufficient_credit',
    });
    expect(await creditAccount(handle, ws.workspaceId)).toEqual({
      balance: 1000,
      charged: 0,
      open: 0,
      openRows: 0,
    });
  });

  it('charges bursts of text with a flush between exactly what was synthesized', async () => {
    const ws = await seedWorkspace(handle, { credits: 10 });
    const client = await open(ws);
    const parts = ['The first sentence.', ' The second one.', ' And a third.'];
    client.send({ event: 'start', request: START });
    client.send({ event: 'text', text: parts[0] });
    client.send({ event: 'text', text: parts[1] });
    client.send({ event: 'flush' });
    client.send({ event: 'text', text: parts[2] });
    client.send({ event: 'stop' });
    await client.closed;
    expect(client.events.at(-1)?.event).toBe('finish');
    const chars = parts.join('').length;
    expect(await statusOf(ws.workspaceId)).toMatchObject({
      status: 'succeeded',
      chars_requested: chars,
    });
    expect(await creditAccount(handle, ws.workspaceId)).toEqual({
      balance: 10_000 - chars * 10,
      charged: chars * 10,
      open: 0,
      openRows: 0,
    });
  });

  it('balances exactly after 150 streams cut off at random points', async () => {
    const ws = await seedWorkspace(handle, { credits: SEED_CREDITS });
    const next = random(dialect === 'postgres' ? 20260501 : 20260502);
    const words = TEXT_100.split(' ');
    const sentence = () =>
      Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => words[Math.floor(next() * words.length)],
      )
        .join(' ')
        .concat('. ');

    type Plan = { steps: ('text' | 'flush')[]; cutAfter: number; delaysMs: number[] };
    const plans: Plan[] = Array.from({ length: 150 }, () => {
      const steps = Array.from({ length: 1 + Math.floor(next() * 8) }, () =>
        next() < 0.7 ? ('text' as const) : ('flush' as const),
      );
      // -1: before start; steps.length: after stop (a clean end); otherwise mid-request.
      const roll = next();
      const cutAfter =
        roll < 0.25 ? steps.length : roll < 0.3 ? -1 : Math.floor(next() * steps.length);
      return { steps, cutAfter, delaysMs: steps.map(() => Math.floor(next() * 25)) };
    });
    const texts = plans.map((plan) => plan.steps.map(() => sentence()));

    const run = async (plan: Plan, index: number) => {
      let client: StreamClient;
      try {
        client = await open(ws);
      } catch {
        return;
      }
      if (plan.cutAfter === -1) {
        client.socket.terminate();
        return;
      }
      client.send({ event: 'start', request: START });
      for (let i = 0; i < plan.steps.length; i++) {
        if (i === plan.cutAfter) {
          client.socket.terminate();
          return;
        }
        const step = plan.steps[i];
        client.send(
          step === 'text' ? { event: 'text', text: texts[index]![i] } : { event: 'flush' },
        );
        await sleep(plan.delaysMs[i]!);
      }
      client.send({ event: 'stop' });
      await client.closed;
    };

    // The account adds up at every moment, not only at the end: read it over and over
    // while the streams run and close, straight from the tables and as `awp credit show`
    // and the Usage page read it.
    const grants = new CreditGrants(handle.db);
    let running = true;
    const sums: number[] = [];
    const shown: number[] = [];
    const watcher = (async () => {
      while (running) {
        const account = await creditAccount(handle, ws.workspaceId);
        sums.push(account.balance + account.charged + account.open);
        const view = await grants.account(ws.workspaceId);
        shown.push(
          Math.round((view.balanceCredits + view.chargedCredits + view.reservedCredits) * 1000),
        );
        await sleep(5);
      }
    })();
    // 25 clients at a time, 150 in all.
    let cursor = 0;
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (cursor < plans.length) {
          const index = cursor++;
          await run(plans[index]!, index);
        }
      }),
    );
    await waitUntil(
      async () => (await creditAccount(handle, ws.workspaceId)).openRows === 0,
      60_000,
      'every ledger row to close',
    );
    running = false;
    await watcher;
    expect(sums.length).toBeGreaterThan(10);
    expect(sums.filter((sum) => sum !== SEEDED)).toEqual([]);
    expect(shown.filter((sum) => sum !== SEEDED)).toEqual([]);
    const account = await creditAccount(handle, ws.workspaceId);
    expect(account.charged).toBeGreaterThan(0);
    expect(await grantedMillicredits(handle, ws.workspaceId)).toBe(SEEDED);
    expect(account.balance + account.charged + account.open).toBe(SEEDED);
  }, 180_000);
});
