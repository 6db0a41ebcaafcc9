// The transcription client's socket against a stand-in of the browser's WebSocket (Node 20
// has none): `start` first, audio and events in order, audio held back while the browser's
// send buffer is full and sent when it drains, the session failed when the backlog passes
// 30 s of audio, and how closes are reported.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TranscriptionError } from '../../../../client-sdk/src/transcription/errors.ts';
import {
  HIGH_WATER_BYTES,
  MAX_BACKLOG_BYTES,
  type SocketEvents,
  TranscriptionSocket,
} from '../../../../client-sdk/src/transcription/socket.ts';

/** The browser WebSocket's surface the client uses; `bufferedAmount` is set by the test. */
class BrowserSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 3;
  static last: BrowserSocket | undefined;
  readyState = BrowserSocket.CONNECTING;
  bufferedAmount = 0;
  binaryType = 'blob';
  readonly sent: (string | number)[] = [];
  closedWith: [number, string] | undefined;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;

  constructor(readonly url: string) {
    BrowserSocket.last = this;
  }

  /** Text frames as sent; binary frames as their byte length. */
  send(data: string | ArrayBuffer): void {
    this.sent.push(typeof data === 'string' ? data : data.byteLength);
  }

  close(code: number, reason: string): void {
    this.closedWith = [code, reason];
    this.readyState = BrowserSocket.CLOSED;
  }

  open(): void {
    this.readyState = BrowserSocket.OPEN;
    this.onopen?.();
  }

  serverSends(event: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(event) });
  }
}

function recorder() {
  const seen: { name: string; value?: unknown }[] = [];
  const events: SocketEvents = {
    started: (value) => seen.push({ name: 'started', value }),
    transcript: (value) => seen.push({ name: 'transcript', value }),
    flushed: () => seen.push({ name: 'flushed' }),
    finished: (value) => seen.push({ name: 'finished', value }),
    failed: (error: TranscriptionError) =>
      seen.push({ name: 'failed', value: { code: error.code, retryable: error.retryable } }),
  };
  return { seen, events };
}

const chunk = (bytes = 1600) => new ArrayBuffer(bytes);
const handshake = () => {
  throw new Error('not expected');
};

describe('the transcription socket', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('WebSocket', BrowserSocket);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('sends start first, then what was queued before the socket opened, in order', () => {
    const { events } = recorder();
    const socket = new TranscriptionSocket(
      'ws://api/v1/realtime-transcription?token=t',
      { audio_format: 'pcm_16000' },
      events,
      handshake,
    );
    socket.sendAudio(chunk());
    socket.sendEvent('flush');
    socket.sendAudio(chunk(800));
    socket.sendEvent('stop');
    const browser = BrowserSocket.last as BrowserSocket;
    expect(browser.binaryType).toBe('arraybuffer');
    expect(browser.sent).toEqual([]);
    browser.open();
    expect(browser.sent).toEqual([
      '{"event":"start","audio_format":"pcm_16000"}',
      1600,
      '{"event":"flush"}',
      800,
      '{"event":"stop"}',
    ]);
  });

  it('holds audio back while the browser buffers 64 KiB, and sends it when the buffer drains', () => {
    const { events, seen } = recorder();
    const socket = new TranscriptionSocket('ws://x', {}, events, handshake);
    const browser = BrowserSocket.last as BrowserSocket;
    browser.open();
    browser.bufferedAmount = HIGH_WATER_BYTES;
    socket.sendAudio(chunk());
    socket.sendEvent('flush');
    socket.sendAudio(chunk());
    expect(browser.sent).toEqual(['{"event":"start"}']);
    vi.advanceTimersByTime(100);
    expect(browser.sent).toHaveLength(1);
    browser.bufferedAmount = HIGH_WATER_BYTES - 1;
    vi.advanceTimersByTime(20);
    expect(browser.sent).toEqual(['{"event":"start"}', 1600, '{"event":"flush"}', 1600]);
    expect(seen).toEqual([]);
  });

  it('fails with a retryable connection_failed when over 30 s of audio waits to be sent', () => {
    const { events, seen } = recorder();
    const socket = new TranscriptionSocket('ws://x', {}, events, handshake);
    const browser = BrowserSocket.last as BrowserSocket;
    browser.open();
    browser.bufferedAmount = HIGH_WATER_BYTES;
    const chunks = Math.floor((MAX_BACKLOG_BYTES - HIGH_WATER_BYTES) / 1600);
    for (let i = 0; i < chunks; i++) socket.sendAudio(chunk());
    expect(seen).toEqual([]);
    socket.sendAudio(chunk());
    expect(seen).toEqual([
      { name: 'failed', value: { code: 'connection_failed', retryable: true } },
    ]);
    expect(browser.closedWith).toEqual([1000, 'error']);
    // Nothing is sent after the failure.
    browser.bufferedAmount = 0;
    vi.advanceTimersByTime(100);
    expect(browser.sent).toEqual(['{"event":"start"}']);
  });

  it('decodes the session’s events, with the usage in the finish', () => {
    const { events, seen } = recorder();
    new TranscriptionSocket('ws://x', {}, events, handshake);
    const browser = BrowserSocket.last as BrowserSocket;
    browser.open();
    const session_id = 'a5a0c2f5-0000-7000-8000-000000000001';
    browser.serverSends({
      event: 'started',
      session_id,
      audio_format: 'pcm_16000',
      language: null,
      interim_results: false,
      endpointing: 'manual',
    });
    browser.serverSends({
      event: 'transcript',
      session_id,
      segment_id: 1,
      text: 'Hi',
      final: true,
      start_ms: 0,
      end_ms: 500,
      language: 'en',
    });
    browser.serverSends({ event: 'speech_started', session_id });
    browser.serverSends({ event: 'flushed', session_id });
    browser.serverSends({ event: 'usage', session_id, usage: { audio_ms: 1234 } });
    browser.serverSends({
      event: 'finish',
      session_id,
      reason: 'stop',
      cost: { credits: 0.124, amount: 0.000124, currency: 'USD', pass_through: false },
      audit_id: 'aud_1',
    });
    browser.onclose?.({ code: 1000, reason: 'finish' });
    expect(seen).toEqual([
      {
        name: 'started',
        value: {
          sessionId: session_id,
          audioFormat: 'pcm_16000',
          language: null,
          interimResults: false,
          endpointing: 'manual',
        },
      },
      {
        name: 'transcript',
        value: { segmentId: 1, text: 'Hi', final: true, startMs: 0, endMs: 500, language: 'en' },
      },
      { name: 'flushed' },
      {
        name: 'finished',
        value: {
          sessionId: session_id,
          audioMs: 1234,
          cost: { credits: 0.124, amount: 0.000124, currency: 'USD', passThrough: false },
          auditId: 'aud_1',
        },
      },
    ]);
  });

  it('reports a close before open as the handshake failure, a later one as a lost connection', () => {
    const refused = recorder();
    const handshakeError = { code: 'token_expired' } as TranscriptionError;
    new TranscriptionSocket('ws://x', {}, refused.events, () => handshakeError);
    (BrowserSocket.last as BrowserSocket).onclose?.({ code: 1006, reason: '' });
    expect(refused.seen).toEqual([
      { name: 'failed', value: { code: 'token_expired', retryable: undefined } },
    ]);

    const lost = recorder();
    new TranscriptionSocket('ws://x', {}, lost.events, handshake);
    const browser = BrowserSocket.last as BrowserSocket;
    browser.open();
    browser.onclose?.({ code: 1006, reason: '' });
    expect(lost.seen).toEqual([
      { name: 'failed', value: { code: 'connection_failed', retryable: true } },
    ]);
  });

  it('fails when the api does not start the session in 15 s', () => {
    const { events, seen } = recorder();
    new TranscriptionSocket('ws://x', {}, events, handshake);
    (BrowserSocket.last as BrowserSocket).open();
    vi.advanceTimersByTime(14_999);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual([
      { name: 'failed', value: { code: 'connection_failed', retryable: true } },
    ]);
  });
});
