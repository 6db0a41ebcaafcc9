import type { TranscriptionServerEvent } from '@awp/protocol';
import { v7 as uuidv7 } from 'uuid';
import { canonicalLanguage } from '../agents/agents.ts';
import type { AuthContext } from '../auth/context.ts';
import { audioCostMillicredits } from '../billing/pricing.ts';
import { ApiError, type ErrorCode, errorBody } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { SttError } from '../stt/errors.ts';
import type { SttStream } from '../stt/provider.ts';
import type { VoiceActivity } from '../stt/vad/voice-activity.ts';
import type { EventChannel } from '../tts/stream/channel.ts';
import type { StreamSlot, StreamSlots } from '../tts/stream/stream-slots.ts';
import { PcmInput } from './audio-input.ts';
import type { TranscriptionEngine } from './engine.ts';
import { RESERVE_AHEAD_MS, transcriptionCost } from './pricing.ts';
import { AUDIO_FORMATS, type ClientEvent, parseClientEvent, type StartEvent } from './protocol.ts';
import type { TranscriptionSessionStore } from './session-store.ts';
import { TranscriptDelivery } from './transcripts.ts';
import { UtteranceRouter } from './utterances.ts';

/** What a realtime transcription session needs from the rest of the api. */
export interface TranscriptionDependencies {
  store: TranscriptionSessionStore;
  engine: TranscriptionEngine;
  voiceActivity: VoiceActivity;
  /** Concurrent sessions per workspace, across api processes. */
  slots: StreamSlots;
  logger: Logger;
  priceMillicreditsPerMinute: number;
  /** Longest wait for a client frame before `stop`. */
  idleTimeoutMs: number;
  /** Longest session, from `start`. */
  maxSessionMs: number;
}

type State = 'awaiting_start' | 'starting' | 'open' | 'ending' | 'ended';

/** How an orderly end came about: `stop`, the client leaving, or a limit (an error event). */
type Ending = { kind: 'stop' } | { kind: 'lost' } | { kind: 'limit'; error: ApiError };

/** Failures of the service itself: the session's audio is then not charged. */
const SERVICE_FAILURES: readonly ErrorCode[] = [
  'internal_error',
  'provider_error',
  'provider_unavailable',
  'provider_auth_missing',
  'service_unavailable',
];

/**
 * One realtime transcription session on one WebSocket: `start`, then audio (binary frames
 * or base64 `audio` events), optional `flush`, and `stop`; `started`, `transcript`
 * (interim and final), `flushed`, then `usage` and `finish`, or one `error`.
 *
 * Client frames are handled one at a time in arrival order; a frame after `stop` ends the
 * session with an `invalid_request` error. Credit is reserved ahead of the audio; audio it cannot cover ends the session.
 * `stop`, a limit (length, credit) and a client that leaves all end the session in order:
 * the audio received is transcribed, its finals delivered (when someone listens) and
 * stored, and it is charged. A failure of the client's making (a bad frame, silence past
 * the idle timeout) ends it at once, charged for the audio received; a failure of the
 * service ends it at once, uncharged.
 */
export class TranscriptionSession {
  readonly id = uuidv7();
  readonly #auditId = `aud_${uuidv7()}`;
  #state: State = 'awaiting_start';
  #chain: Promise<void> = Promise.resolve();
  readonly #abort = new AbortController();
  #idleTimer: NodeJS.Timeout | undefined;
  #limitTimer: NodeJS.Timeout | undefined;
  #input: PcmInput | undefined;
  #router: UtteranceRouter | undefined;
  #slot: StreamSlot | undefined;
  #consumer: Promise<void> | undefined;
  #rowOpen = false;
  #clientGone = false;
  #coveredMs = 0;
  #transcripts: TranscriptDelivery | undefined;
  #interims = true;
  #stopReceived = false;
  /** The error a frame after `stop` turned the ending into. */
  #afterStop: ApiError | undefined;

  constructor(
    private readonly deps: TranscriptionDependencies,
    private readonly auth: AuthContext,
    private readonly channel: EventChannel,
  ) {}

  /** The connection is open: the idle clock starts. */
  opened(): void {
    this.#armIdleTimer();
  }

  /** One parsed JSON frame. */
  receive(value: unknown): void {
    if (this.#refusedAfterStop() || !this.#accepting()) return;
    let event: ClientEvent;
    try {
      event = parseClientEvent(value);
    } catch (error) {
      this.#fail(error);
      return;
    }
    // Marked on arrival: frames after it in wire order are refused, even while it waits.
    if (event.event === 'stop') this.#stopReceived = true;
    this.#enqueue(() => this.#handle(event));
  }

  /** One binary frame: audio. */
  receiveAudio(data: Buffer): void {
    if (this.#refusedAfterStop() || !this.#accepting()) return;
    this.#enqueue(() => this.#handle({ event: 'audio', data }));
  }

  /**
   * The spec's order ends with `stop`: a frame after it is dropped, and the ending the stop
   * began closes with the terminal `invalid_request` error instead of `usage` and `finish`
   * (the audio before the stop is still transcribed and charged, as for any failure of the
   * client's making). After `finish` nothing is sent.
   */
  #refusedAfterStop(): boolean {
    if (!this.#stopReceived) return false;
    this.#afterStop ??= new ApiError(
      'invalid_request',
      'No event may follow stop: one WebSocket carries one session.',
    );
    return true;
  }

  drained(): void {
    this.channel.drained();
  }

  /**
   * Ends the session from outside (its key was revoked, its workspace suspended): the
   * terminal `error` event with `error`'s code, charged for the audio received.
   */
  stop(error: ApiError): void {
    this.#fail(error);
  }

  /** The connection closed; `serverCloseCode` when this side closed it (1008, 1009). */
  lost(serverCloseCode?: number): void {
    this.channel.lost();
    if (this.#state === 'ended') return;
    if (serverCloseCode === 1008 || serverCloseCode === 1009) {
      this.#fail(
        new ApiError('invalid_request', `The connection was closed (${serverCloseCode}).`),
      );
      return;
    }
    this.#clientGone = true;
    if (this.#state === 'awaiting_start') this.#fail(new ApiError('invalid_request', 'No start.'));
    else if (this.#state === 'open') this.#requestEnd({ kind: 'lost' });
    // While starting, the start ends the session once it is done; while ending, it goes on.
  }

  #accepting(): boolean {
    if (this.#state !== 'awaiting_start' && this.#state !== 'starting' && this.#state !== 'open')
      return false;
    this.#armIdleTimer();
    return true;
  }

  #enqueue(work: () => Promise<void>): void {
    this.#chain = this.#chain.then(work).catch((error: unknown) => this.#fail(error));
  }

  async #handle(event: ClientEvent): Promise<void> {
    const state = this.#state;
    if (state === 'ended') return;
    // Audio received before an end was asked for is still transcribed; nothing else is.
    if (state === 'ending' && event.event !== 'audio' && event.event !== 'flush') return;
    if (event.event === 'start') {
      if (this.#state !== 'awaiting_start') {
        throw new ApiError('invalid_request', 'start was already sent: one session per WebSocket.');
      }
      await this.#start(event);
      return;
    }
    if (this.#state === 'awaiting_start') {
      throw new ApiError(
        'invalid_request',
        `${event.event} before start: the first event must be start.`,
      );
    }
    switch (event.event) {
      case 'audio':
        return this.#audio(event.data);
      case 'flush':
        // Every sample received before the flush belongs to the utterance it ends.
        this.#router?.push((this.#input as PcmInput).finish());
        return this.#router?.flush();
      case 'stop':
        this.#requestEnd({ kind: 'stop' });
        return;
    }
  }

  async #start(event: StartEvent): Promise<void> {
    const { deps } = this;
    this.#state = 'starting';
    const language = event.language === undefined ? undefined : canonicalLanguage(event.language);
    const provider = deps.engine.provider();
    this.#interims = event.interim_results ?? true;
    const slot = await deps.slots.acquire(this.auth.workspaceId, this.id);
    if (this.#state !== 'starting') {
      slot.release();
      return;
    }
    this.#slot = slot;
    this.#input = await PcmInput.create(AUDIO_FORMATS[event.audio_format]);
    const opened = await deps.store.open({
      id: this.id,
      auditId: this.#auditId,
      workspaceId: this.auth.workspaceId,
      environment: this.auth.environment,
      apiKeyId: this.auth.keyId,
      engine: deps.engine.name,
      audioFormat: event.audio_format,
      language,
      partnerSessionId: event.partner_session_id,
      priceMillicreditsPerMinute: deps.priceMillicreditsPerMinute,
      reserveMillicredits: audioCostMillicredits(RESERVE_AHEAD_MS, deps.priceMillicreditsPerMinute),
    });
    if (!opened) {
      throw new ApiError('insufficient_credit', 'The workspace credit cannot cover transcription.');
    }
    this.#rowOpen = true;
    this.#coveredMs = RESERVE_AHEAD_MS;
    if (this.#state !== 'starting') return;
    const stream = provider.stream(
      { language: deps.engine.language(language) },
      this.#abort.signal,
    );
    const serverFindsEnds = !provider.capabilities.streaming && event.endpointing !== 'manual';
    this.#router = await UtteranceRouter.open({
      stream,
      voiceActivity: serverFindsEnds ? deps.voiceActivity : undefined,
      pauseMs: deps.engine.pauseMs,
      failed: (error) => this.#fail(error),
    });
    if (this.#state !== 'starting') {
      this.#router.close();
      return;
    }
    this.#state = 'open';
    this.#limitTimer = setTimeout(() => {
      const ms = deps.maxSessionMs;
      const length =
        ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${Math.round(ms / 1000)} seconds`;
      this.#requestEnd({
        kind: 'limit',
        error: new ApiError('invalid_request', `The session reached its limit of ${length}.`),
      });
    }, deps.maxSessionMs);
    this.#limitTimer.unref();
    this.channel.send({
      event: 'started',
      session_id: this.id,
      audio_format: event.audio_format,
      language: language ?? null,
      interim_results: this.#interims,
      endpointing: serverFindsEnds ? 'vad' : provider.capabilities.streaming ? 'engine' : 'manual',
    } satisfies TranscriptionServerEvent);
    this.#transcripts = new TranscriptDelivery(
      this.id,
      this.channel,
      this.#router,
      deps.store,
      deps.logger,
      this.#interims,
    );
    this.#consumer = this.#consume(stream);
    if (this.#clientGone) this.#requestEnd({ kind: 'lost' });
  }

  async #audio(data: Buffer): Promise<void> {
    const input = this.#input as PcmInput;
    const after = input.receivedMsAfter(data.byteLength);
    if (after > this.#coveredMs) {
      // Once the session is ending, audio the credit does not cover yet is left out.
      if (this.#state !== 'open') return;
      const price = this.deps.priceMillicreditsPerMinute;
      const steps = Math.ceil((after - this.#coveredMs) / RESERVE_AHEAD_MS);
      const covered = this.#coveredMs + steps * RESERVE_AHEAD_MS;
      const more =
        audioCostMillicredits(covered, price) - audioCostMillicredits(this.#coveredMs, price);
      if (!(await this.deps.store.reserve(this.id, more, input.receivedMs))) {
        this.#requestEnd({
          kind: 'limit',
          error: new ApiError('insufficient_credit', 'The workspace credit ran out.'),
        });
        return;
      }
      this.#coveredMs = covered;
    }
    this.#router?.push(input.push(data));
  }

  /** The recognition stream's events, as server events; its failure fails the session. */
  async #consume(stream: SttStream): Promise<void> {
    try {
      for await (const event of stream) {
        if (this.#state !== 'ended') this.#transcripts?.deliver(event);
      }
    } catch (error) {
      if (!this.#abort.signal.aborted) this.#fail(error);
    }
  }

  /** Ends the session in order after the frames already received; ignores later frames. */
  #requestEnd(ending: Ending): void {
    if (this.#state !== 'open') return;
    this.#state = 'ending';
    this.#clearTimers();
    this.#enqueue(() => this.#end(ending));
  }

  async #end(ending: Ending): Promise<void> {
    const input = this.#input as PcmInput;
    await this.#router?.end(input.finish());
    await this.#consumer;
    await this.#transcripts?.stored();
    if (this.#state !== 'ending') return;
    const error = ending.kind === 'limit' ? ending.error : this.#afterStop;
    const charged = await this.deps.store.close(this.id, {
      status: error ? 'failed' : 'ended',
      errorCode: error?.code,
      audioMs: input.receivedMs,
      charge: true,
    });
    if (this.#state !== 'ending') return;
    this.#state = 'ended';
    this.#release();
    if (error) {
      this.channel.send({ ...errorBody(error, this.id), session_id: this.id });
      this.channel.close(1000, 'error');
    } else if (ending.kind === 'stop') {
      this.channel.send({
        event: 'usage',
        session_id: this.id,
        usage: { audio_ms: input.receivedMs },
      } satisfies TranscriptionServerEvent);
      this.channel.send({
        event: 'finish',
        session_id: this.id,
        reason: 'stop',
        cost: transcriptionCost(charged ?? 0),
        audit_id: this.#auditId,
      } satisfies TranscriptionServerEvent);
      this.channel.close(1000, 'finish');
    }
  }

  /** The terminal `error` event at once: recognition stops, the row closes after the frame in hand. */
  #fail(error: unknown): void {
    if (this.#state === 'ended') return;
    const failure = publicFailure(error);
    if (failure.code === 'internal_error') {
      this.deps.logger.error({ err: error, session_id: this.id }, 'realtime transcription failed');
    }
    this.#state = 'ended';
    const audioMs = this.#input?.receivedMs ?? 0;
    this.#abort.abort();
    this.#release();
    this.channel.send({ ...errorBody(failure, this.id), session_id: this.id });
    this.channel.close(1000, 'error');
    // After the frame being handled: a start may be opening the row, a frame reserving.
    void this.#chain
      .then(() => this.#transcripts?.stored())
      .then(() => {
        if (!this.#rowOpen) return;
        return this.deps.store.close(this.id, {
          status: 'failed',
          errorCode: failure.code,
          audioMs,
          charge: !SERVICE_FAILURES.includes(failure.code),
        });
      })
      .catch((closeError: unknown) => {
        this.deps.logger.error(
          { err: closeError, session_id: this.id },
          'closing a session failed',
        );
      });
  }

  #release(): void {
    this.#clearTimers();
    this.#slot?.release();
    this.#router?.close();
    this.#input?.destroy();
    this.#input = undefined;
  }

  #clearTimers(): void {
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#limitTimer);
  }

  #armIdleTimer(): void {
    clearTimeout(this.#idleTimer);
    const ms = this.deps.idleTimeoutMs;
    this.#idleTimer = setTimeout(() => {
      if (this.#state === 'ending' || this.#state === 'ended') return;
      this.#fail(
        new ApiError('invalid_request', `No client frame for ${Math.round(ms / 1000)} seconds.`),
      );
    }, ms);
    this.#idleTimer.unref();
  }
}

/** The public error of a failure: engine failures by their kind, unknown ones internal. */
function publicFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof SttError) return error.toApiError();
  return new ApiError('internal_error', 'Internal error.', { cause: error });
}
