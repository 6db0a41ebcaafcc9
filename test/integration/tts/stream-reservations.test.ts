import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/providers/native/index.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import { openStream, streamUrl } from '../../helpers/stream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

const VOICE = NATIVE_VOICES[0]!.id;

/**
 * Credit for streaming text that arrives in a burst (several events in one read, as a
 * client sending `start` and its text at once does): the amounts the ledger holds and
 * refunds must be exact whichever events share a reservation.
 */
describe('streaming credit reservations', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(
    async () => {
      database = await createTestDatabase('sqlite');
      handle = await openTestDatabase(database);
      server = await startServer({ database, env: { TTS_RATE_LIMIT_PER_MINUTE: '0' } });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await server?.stop();
    await handle?.close();
    await database?.drop();
  });

  const connect = (ws: SeededWorkspace) =>
    openStream(streamUrl(server.url), { authorization: `Bearer ${ws.productionKey}` });

  const rowOf = (ws: SeededWorkspace, status: string) =>
    waitFor(
      async () => {
        const row = await handle.db
          .selectFrom('synthesis_requests')
          .selectAll()
          .where('workspace_id', '=', ws.workspaceId)
          .executeTakeFirst();
        return row?.status === status ? row : undefined;
      },
      { what: `the workspace's ledger row to become ${status}` },
    );

  const balanceOf = async (ws: SeededWorkspace) =>
    (await new Workspaces(handle.db).get(ws.workspaceId)).credits;

  it('holds exactly the cost of the text sent with start, and refunds all of it when the client leaves', async () => {
    // 10 credits per 1,000 characters: 500 characters hold 5 of the 10 credits.
    const ws = await seedWorkspace(handle, { credits: 10 });
    const client = await connect(ws);
    client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
    client.send({ event: 'text', text: 'x'.repeat(300) });
    client.send({ event: 'text', text: 'y'.repeat(200) });
    const open = await waitFor(
      async () => {
        const row = await rowOf(ws, 'started');
        return Number(row.chars_requested) === 500 ? row : undefined;
      },
      { what: 'both text events reserved' },
    );
    expect(Number(open.reserved_millicredits)).toBe(5000);
    expect(await balanceOf(ws)).toBe(5);

    client.socket.terminate();
    const closed = await rowOf(ws, 'cancelled');
    expect(Number(closed.chars_synthesized)).toBe(0);
    expect(Number(closed.cost_millicredits)).toBe(0);
    expect(await balanceOf(ws)).toBe(10);
  });

  it('refuses a burst of text the balance cannot cover with insufficient_credit, charging nothing', async () => {
    // 1 credit covers 100 characters; the two events together are 120.
    const ws = await seedWorkspace(handle, { credits: 1 });
    const client = await connect(ws);
    client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
    client.send({ event: 'text', text: 'x'.repeat(60) });
    client.send({ event: 'text', text: 'y'.repeat(60) });
    client.send({ event: 'stop' });
    await client.closed;
    expect(client.events.map((event) => [event.event, event.code])).toEqual([
      ['error', 'insufficient_credit'],
    ]);
    const row = await rowOf(ws, 'failed');
    expect(row.error_code).toBe('insufficient_credit');
    expect(Number(row.cost_millicredits ?? 0)).toBe(0);
    expect(await balanceOf(ws)).toBe(1);
  });

  it('charges a burst of text, flushes between, exactly what was synthesized', async () => {
    const ws = await seedWorkspace(handle, { credits: 10 });
    const client = await connect(ws);
    const parts = ['The first sentence.', ' The second one.', ' And a third.'];
    client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
    client.send({ event: 'text', text: parts[0] });
    client.send({ event: 'text', text: parts[1] });
    client.send({ event: 'flush' });
    client.send({ event: 'text', text: parts[2] });
    client.send({ event: 'stop' });
    await client.closed;
    expect(client.events.at(-1)?.event).toBe('finish');
    const chars = parts.join('').length;
    const row = await rowOf(ws, 'succeeded');
    expect(Number(row.chars_requested)).toBe(chars);
    expect(Number(row.chars_synthesized)).toBe(chars);
    expect(Number(row.cost_millicredits)).toBe(chars * 10);
    expect(await balanceOf(ws)).toBe((10_000 - chars * 10) / 1000);
  });
});
