import { TranscriptionError } from './errors.ts';
import type { TranscriptionCost, TranscriptionStarted, TranscriptionTranscript } from './events.ts';
import { decodeServerFrame } from './server-events.ts';

/**
 * Bytes the browser may hold unsent (`bufferedAmount`) before the client keeps audio back in
 * its own queue: 64 KiB, 2 s of 16 kHz audio.
 */
export const HIGH_WATER_BYTES = 64 * 1024;
/**
 * Audio waiting to reach the api (held here plus `bufferedAmount`) beyond which the session
 * fails with `connection_failed`: 30 s of 16 kHz audio. Transcripts that late are no use live.
 */
export const MAX_BACKLOG_BYTES = 30 * 32_000;
/** How often a held-back queue checks whether the socket drained. */
const DRAIN_POLL_MS = 20;
/** Longest wait from opening the socket to the api's `started`. */
export const START_TIMEOUT_MS = 15_000;

/** What the socket reports to its session. */
export interface SocketEvents {
  started(started: TranscriptionStarted): void;
  transcript(transcript: TranscriptionTranscript): void;
  flushed(): void;
  finished(end: {
    sessionId: string;
    audioMs: number;
    cost: TranscriptionCost;
    auditId: string;
  }): void;
  /** The session failed: an `error` event, a refused handshake, a lost connection. */
  failed(error: TranscriptionError): void;
}

type Outgoing = { kind: 'audio'; pcm: ArrayBuffer } | { kind: 'event'; json: string };

/**
 * One `/v1/realtime-transcription` WebSocket: `start` first, then audio and control events
 * in the order given, held back while the browser's send buffer is above
 * {@link HIGH_WATER_BYTES}; the server's events decoded for the session. A handshake the
 * browser reports as failed (it never says why) is handed to `handshakeFailed`.
 */
export class TranscriptionSocket {
  readonly #socket: WebSocket;
  readonly #queue: Outgoing[] = [];
  #queuedAudioBytes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #startTimer: ReturnType<typeof setTimeout> | undefined;
  #opened = false;
  #done = false;
  #sessionId: string | undefined;
  #audioMs = 0;

  constructor(
    url: string,
    start: Record<string, unknown>,
    private readonly events: SocketEvents,
    private readonly handshakeFailed: () => TranscriptionError,
  ) {
    this.#socket = new WebSocket(url);
    this.#socket.binaryType = 'arraybuffer';
    this.#socket.onopen = () => {
      this.#opened = true;
      this.#socket.send(JSON.stringify({ event: 'start', ...start }));
      this.#pump();
    };
    this.#socket.onmessage = (event: MessageEvent) => {
      if (typeof event.data === 'string') this.#receive(event.data);
    };
    this.#socket.onclose = (event: CloseEvent) => this.#closed(event);
    this.#startTimer = setTimeout(() => {
      this.#fail(
        new TranscriptionError('connection_failed', 'The session did not start in time.', {
          retryable: true,
        }),
      );
    }, START_TIMEOUT_MS);
  }

  /** Queues one chunk of PCM. */
  sendAudio(pcm: ArrayBuffer): void {
    if (this.#done || pcm.byteLength === 0) return;
    this.#queue.push({ kind: 'audio', pcm });
    this.#queuedAudioBytes += pcm.byteLength;
    this.#pump();
  }

  /** Queues `flush` or `stop`, after the audio queued before it. */
  sendEvent(event: 'flush' | 'stop'): void {
    if (this.#done) return;
    this.#queue.push({ kind: 'event', json: JSON.stringify({ event }) });
    this.#pump();
  }

  /** Closes without `stop` (the api still transcribes and stores what it received). */
  close(): void {
    if (this.#done) return;
    this.#finish();
    this.#socket.close(1000, 'closed by the client');
  }

  #pump(): void {
    if (!this.#opened || this.#done) return;
    const socket = this.#socket;
    while (this.#queue.length > 0 && socket.bufferedAmount < HIGH_WATER_BYTES) {
      const next = this.#queue.shift() as Outgoing;
      if (next.kind === 'audio') {
        this.#queuedAudioBytes -= next.pcm.byteLength;
        socket.send(next.pcm);
      } else {
        socket.send(next.json);
      }
    }
    if (this.#queue.length === 0) return;
    if (this.#queuedAudioBytes + socket.bufferedAmount > MAX_BACKLOG_BYTES) {
      this.#fail(
        new TranscriptionError(
          'connection_failed',
          'The connection could not carry the audio in real time (over 30 s waiting to be sent).',
          { retryable: true, ...this.#context() },
        ),
      );
      return;
    }
    // WebSocket has no drain event: look again shortly.
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, DRAIN_POLL_MS);
  }

  #receive(text: string): void {
    if (this.#done) return;
    const frame = decodeServerFrame(text);
    if ('sessionId' in frame && frame.sessionId) this.#sessionId ??= frame.sessionId;
    switch (frame.kind) {
      case 'started':
        clearTimeout(this.#startTimer);
        this.events.started(frame.started);
        return;
      case 'transcript':
        this.events.transcript(frame.transcript);
        return;
      case 'flushed':
        this.events.flushed();
        return;
      case 'usage':
        this.#audioMs = frame.audioMs;
        return;
      case 'finish':
        this.#finish();
        this.events.finished({
          sessionId: frame.sessionId,
          audioMs: this.#audioMs,
          cost: frame.cost,
          auditId: frame.auditId,
        });
        return;
      case 'error':
        this.#fail(frame.error);
        return;
      case 'ignored':
        return;
    }
  }

  #closed(event: CloseEvent): void {
    if (this.#done) return;
    if (!this.#opened) {
      this.#fail(this.handshakeFailed());
      return;
    }
    const reason = event.reason ? `: ${event.reason}` : '';
    this.#fail(
      new TranscriptionError(
        'connection_failed',
        `The connection to the api was lost (close ${event.code}${reason}).`,
        { retryable: true, ...this.#context() },
      ),
    );
  }

  #context(): { sessionId?: string } {
    return this.#sessionId ? { sessionId: this.#sessionId } : {};
  }

  #fail(error: TranscriptionError): void {
    if (this.#done) return;
    this.#finish();
    if (this.#socket.readyState !== WebSocket.CLOSED) this.#socket.close(1000, 'error');
    this.events.failed(error);
  }

  #finish(): void {
    this.#done = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#startTimer);
    this.#queue.length = 0;
    this.#queuedAudioBytes = 0;
  }
}
