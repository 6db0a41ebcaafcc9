import { describe, expect, it } from 'vitest';
import {
  EventChannel,
  SEND_HIGH_WATER_BYTES,
  type StreamConnection,
} from '../../../../src/tts/stream/channel.ts';

/** A connection whose buffered amount the test sets, like a socket draining on its own. */
function fakeConnection() {
  const state = { buffered: 0, sent: [] as string[], closed: false };
  const connection: StreamConnection = {
    send: (text) => {
      state.sent.push(text);
    },
    bufferedAmount: () => state.buffered,
    close: () => {
      state.closed = true;
    },
  };
  return { state, connection };
}

const settled = async (promise: Promise<void>, ms: number) =>
  Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);

describe('EventChannel flow control', () => {
  it('is writable at once below the high-water mark', async () => {
    const { connection } = fakeConnection();
    const channel = new EventChannel(connection);
    expect(await settled(channel.writable(), 0)).toBe(true);
  });

  it('wakes on a drain event once the backlog is below the mark', async () => {
    const { state, connection } = fakeConnection();
    const channel = new EventChannel(connection);
    state.buffered = SEND_HIGH_WATER_BYTES;
    const waiting = channel.writable();
    state.buffered = SEND_HIGH_WATER_BYTES - 1;
    channel.drained();
    expect(await settled(waiting, 1_000)).toBe(true);
  });

  it('wakes when the backlog emptied without a drain event (flushed by another write)', async () => {
    const { state, connection } = fakeConnection();
    const channel = new EventChannel(connection);
    state.buffered = SEND_HIGH_WATER_BYTES * 2;
    const waiting = channel.writable();
    expect(await settled(waiting, 100)).toBe(false);
    // The socket wrote its backlog out, but uWS emitted no drain for it.
    state.buffered = 0;
    expect(await settled(waiting, 1_000)).toBe(true);
  });

  it('wakes when an event sent while waiting flushed the backlog', async () => {
    const { state, connection } = fakeConnection();
    connection.send = (text) => {
      state.sent.push(text);
      state.buffered = 0; // this write flushed everything
    };
    const channel = new EventChannel(connection);
    state.buffered = SEND_HIGH_WATER_BYTES * 2;
    const waiting = channel.writable();
    channel.send({ event: 'usage' });
    expect(await settled(waiting, 5)).toBe(true);
  });

  it('wakes waiters when the connection is lost or closed', async () => {
    const { state, connection } = fakeConnection();
    const channel = new EventChannel(connection);
    state.buffered = SEND_HIGH_WATER_BYTES * 2;
    const waiting = channel.writable();
    channel.lost();
    expect(await settled(waiting, 1_000)).toBe(true);
    expect(channel.closed).toBe(true);
  });
});
