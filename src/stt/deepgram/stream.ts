import { DeepgramClient, type listen } from '@deepgram/sdk';
import type { Logger } from '../../observability/logger.ts';
import { cancelledError, SttError } from '../errors.ts';
import { EventQueue } from '../event-queue.ts';
import { STT_SAMPLE_RATE_HZ, type SttEvent, type SttOptions, type SttStream } from '../provider.ts';
import { type DeepgramHandshakeError, WsDeepgramTransport } from './transport.ts';

/** What a Deepgram stream needs from the provider. */
export interface DeepgramStreamSettings {
  apiKey: string;
  /** http(s) base URL of the API; the socket goes to the same host over ws(s). */
  baseUrl: string;
  model: string;
  /** Idle time after which a KeepAlive is sent. */
  keepAliveMs: number;
  /** Longest wait for the answer to `Finalize` before `flushed` is reported anyway. */
  finalizeTimeoutMs: number;
  /** Longest wait for the server to close after `CloseStream`. */
  closeTimeoutMs: number;
  logger: Logger;
}

type Pending = { kind: 'audio'; data: Buffer } | { kind: 'finalize' } | { kind: 'close' };
type Socket = Awaited<ReturnType<DeepgramClient['listen']['v1']['connect']>>;

/**
 * One Deepgram live transcription (`/v1/listen` WebSocket): audio as binary frames,
 * `Finalize` at each `flush()`, `CloseStream` at `end()`, a `KeepAlive` when no audio was
 * sent for `keepAliveMs`. `Results` become `interim` (not `is_final`) and `final` events;
 * the `Results` answering a `Finalize` (`from_finalize`) ends with `flushed`. The SDK's
 * reconnection is off: a dropped connection ends the stream with a retryable error, since
 * audio sent to the old connection would be lost silently.
 */
export class DeepgramSttStream implements SttStream {
  readonly #settings: DeepgramStreamSettings;
  readonly #options: SttOptions;
  readonly #queue = new EventQueue<SttEvent>();
  readonly #stop = new AbortController();
  readonly #signal: AbortSignal;
  #socket: Socket | undefined;
  #transport: WsDeepgramTransport | undefined;
  #pending: Pending[] = [];
  #open = false;
  #ending = false;
  #flushTimers: NodeJS.Timeout[] = [];
  #keepAlive: NodeJS.Timeout | undefined;
  #closeTimer: NodeJS.Timeout | undefined;
  #lastSentAt = Date.now();

  constructor(settings: DeepgramStreamSettings, options: SttOptions, signal: AbortSignal) {
    this.#settings = settings;
    this.#options = { ...options };
    this.#signal = AbortSignal.any([signal, this.#stop.signal]);
    if (this.#signal.aborted) {
      this.#queue.fail(cancelledError());
      return;
    }
    this.#signal.addEventListener('abort', () => this.#finish(cancelledError()), { once: true });
    this.#connect().catch((error: unknown) => this.#finish(this.#classify(error)));
  }

  pushAudio(samples: Int16Array): void {
    if (this.#ending || this.#queue.done || samples.length === 0) return;
    // Copied: the caller may reuse its frame buffer before the socket opens.
    const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    this.#send({ kind: 'audio', data: Buffer.from(data) });
  }

  flush(): void {
    if (this.#ending || this.#queue.done) return;
    this.#send({ kind: 'finalize' });
  }

  end(): void {
    if (this.#ending || this.#queue.done) return;
    this.#ending = true;
    this.#send({ kind: 'close' });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    try {
      yield* this.#queue;
    } finally {
      if (!this.#queue.done) this.#stop.abort();
    }
  }

  async #connect(): Promise<void> {
    const base = new URL(this.#settings.baseUrl);
    const wsBase = `${base.protocol === 'http:' ? 'ws:' : 'wss:'}//${base.host}${base.pathname.replace(/\/$/, '')}`;
    const client = new DeepgramClient({
      apiKey: this.#settings.apiKey,
      environment: { base: base.origin, production: wsBase, agent: wsBase, agentRest: base.origin },
      transportFactory: (url, headers) => {
        this.#transport = new WsDeepgramTransport(url, headers);
        return this.#transport;
      },
    });
    const args: Parameters<DeepgramClient['listen']['v1']['connect']>[0] = {
      model: this.#settings.model,
      encoding: 'linear16',
      sample_rate: STT_SAMPLE_RATE_HZ,
      channels: 1,
      interim_results: 'true',
      punctuate: 'true',
      reconnectAttempts: 0,
      abortSignal: this.#signal,
    };
    if (this.#options.language !== undefined) args.language = this.#options.language;
    if (this.#options.prompt !== undefined) args.keyterm = this.#options.prompt;
    const socket = await client.listen.v1.connect(args);
    this.#socket = socket;
    socket.on('message', (message) => this.#onMessage(message));
    socket.on('error', (error) => this.#finish(this.#classify(error)));
    socket.on('close', (event) => this.#onClose(event.code, event.reason));
    const opened = new Promise<void>((resolve) => socket.on('open', () => resolve()));
    socket.connect();
    await opened;
    if (this.#queue.done) return;
    this.#open = true;
    this.#keepAlive = setInterval(
      () => {
        if (this.#open && Date.now() - this.#lastSentAt >= this.#settings.keepAliveMs) {
          socket.sendKeepAlive({ type: 'KeepAlive' });
          this.#lastSentAt = Date.now();
        }
      },
      Math.max(50, Math.floor(this.#settings.keepAliveMs / 4)),
    );
    for (const item of this.#pending.splice(0)) this.#send(item);
  }

  #send(item: Pending): void {
    const socket = this.#socket;
    if (!this.#open || socket === undefined) {
      this.#pending.push(item);
      return;
    }
    this.#lastSentAt = Date.now();
    switch (item.kind) {
      case 'audio':
        socket.sendMedia(item.data);
        return;
      case 'finalize':
        socket.sendFinalize({ type: 'Finalize' });
        this.#flushTimers.push(
          setTimeout(() => {
            this.#settings.logger.warn('Deepgram did not answer Finalize in time');
            this.#flushed();
          }, this.#settings.finalizeTimeoutMs),
        );
        return;
      case 'close':
        socket.sendCloseStream({ type: 'CloseStream' });
        this.#closeTimer = setTimeout(() => {
          this.#settings.logger.warn('Deepgram did not close after CloseStream; closing');
          this.#finish(undefined);
        }, this.#settings.closeTimeoutMs);
    }
  }

  #onMessage(message: { type: string }): void {
    if (message.type !== 'Results') return;
    const results = message as listen.ListenV1Results;
    const best = results.channel.alternatives[0];
    const text = best?.transcript.trim() ?? '';
    const startMs = Math.round(results.start * 1000);
    const endMs = Math.round((results.start + results.duration) * 1000);
    const language = best?.languages?.[0] ?? this.#options.language;
    if (results.is_final === true) {
      if (text !== '') {
        this.#queue.push({
          type: 'final',
          endpoint: results.speech_final === true,
          text,
          language,
          startMs,
          endMs,
          confidence: best?.confidence,
        });
      }
      if (results.from_finalize === true) this.#flushed();
    } else if (text !== '') {
      this.#queue.push({ type: 'interim', text, language, startMs, endMs });
    }
  }

  /** Reports the oldest outstanding `flush()` as done. */
  #flushed(): void {
    const timer = this.#flushTimers.shift();
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#queue.push({ type: 'flushed' });
  }

  #onClose(code: number, reason: string): void {
    if (this.#queue.done) return;
    if (this.#ending && (code === 1000 || code === 1005)) {
      this.#finish(undefined);
      return;
    }
    const failure = code === 1008 ? 'rejected' : 'unavailable';
    this.#finish(new SttError(failure, `Deepgram closed the stream: ${code} ${reason}`.trim()));
  }

  #classify(error: unknown): SttError {
    if (error instanceof SttError) return error;
    if (this.#signal.aborted) return cancelledError();
    const handshake = this.#transport?.handshakeError;
    if (handshake !== undefined) return handshakeFailure(handshake);
    const message = error instanceof Error ? error.message : String(error);
    return new SttError('unavailable', `Deepgram connection failed: ${message}`, { cause: error });
  }

  /** Ends the stream: normally (`undefined`) or with `error`; closes the socket. */
  #finish(error: SttError | undefined): void {
    clearInterval(this.#keepAlive);
    clearTimeout(this.#closeTimer);
    for (const timer of this.#flushTimers.splice(0)) {
      clearTimeout(timer);
      // Closing after CloseStream finalizes everything: each flush got its finals.
      if (error === undefined) this.#queue.push({ type: 'flushed' });
    }
    this.#open = false;
    if (error === undefined) this.#queue.end();
    else this.#queue.fail(error);
    this.#socket?.close();
  }
}

function handshakeFailure(error: DeepgramHandshakeError): SttError {
  const { status } = error;
  if (status === 401 || status === 403) return new SttError('auth_rejected', error.message);
  if (status === 429) return new SttError('overloaded', error.message);
  if (status >= 400 && status < 500) return new SttError('rejected', error.message);
  return new SttError('unavailable', error.message);
}
