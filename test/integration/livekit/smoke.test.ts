// Smoke test of the locally installed livekit-server: it starts, serves the Twirp room API
// with the dev key pair, and stops cleanly. Fails (does not skip) when the binary is missing.

import { RoomServiceClient } from 'livekit-server-sdk';
import { describe, expect } from 'vitest';
import { realtimeTest as it } from '../../fixtures/realtime.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';

describe('livekit-server (dev mode)', () => {
  let lk: LivekitServer | undefined;

  it.beforeAll(async ({ livekit }) => {
    lk = livekit;
  }, 30_000);

  it('creates, lists and deletes a room', async () => {
    if (!lk) throw new Error('livekit-server did not start');
    expect(lk.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const rooms = new RoomServiceClient(lk.httpUrl, lk.apiKey, lk.apiSecret);
    const name = `smoke-${process.pid}-${Date.now()}`;

    const created = await rooms.createRoom({ name, emptyTimeout: 60 });
    expect(created.name).toBe(name);
    expect(created.sid).toMatch(/^RM_/);

    const listed = await rooms.listRooms();
    expect(listed.map((r) => r.name)).toContain(name);

    const byName = await rooms.listRooms([name]);
    expect(byName).toHaveLength(1);
    expect(byName[0]?.sid).toBe(created.sid);

    await rooms.deleteRoom(name);
    const after = await rooms.listRooms();
    expect(after.map((r) => r.name)).not.toContain(name);
  }, 20_000);

  it('rejects a wrong API secret', async () => {
    if (!lk) throw new Error('livekit-server did not start');
    const rooms = new RoomServiceClient(lk.httpUrl, lk.apiKey, 'not-the-secret-but-long-enough-x');
    await expect(rooms.listRooms()).rejects.toThrow();
  }, 20_000);

  it('stops on SIGTERM', async () => {
    if (!lk) throw new Error('livekit-server did not start');
    await lk.stop();
    await expect(fetch(lk.httpUrl, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
  }, 30_000);
});
