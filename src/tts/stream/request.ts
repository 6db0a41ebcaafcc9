import type { TtsServerEvent } from '@awp/protocol';
import { v7 as uuidv7 } from 'uuid';
import type { DurationCounter } from '../../../media/duration.ts';
import { getOutputFormatInfo, type OutputFormat } from '../../../media/formats.ts';
import { inThreadTranscoder } from '../../../media/transcode.ts';
import { agentSessionLedgerId } from '../../agent-sessions/session-report.ts';
import type { AuthContext } from '../../auth/context.ts';
import { publicCost } from '../../billing/cost.ts';
import type { LedgerOutcome } from '../../billing/ledger.ts';
import { ApiError, errorBody } from '../../errors.ts';
import type { CatalogVoice } from '../../voices/catalog.ts';
import { requireAlignment } from '../alignment/capability.ts';
import { AlignmentTimeline } from '../alignment/timeline.ts';
import type { RouteFailover } from '../failover.ts';
import { failoverFor } from '../failover-ledger.ts';
import { MAX_STREAM_TOTAL_TEXT_CHARS } from '../schemas.ts';
import { ProviderUsage, synthesisFailure } from '../synthesize.ts';
import { codePointLength } from '../tags.ts';
import { resolveSynthesisTarget } from '../target.ts';
import { persistAfterFinish, StreamAudioCopy } from './audio-copy.ts';
import type { EventChannel } from './channel.ts';
import { ClientEventQueue } from './client-event-queue.ts';
import { StreamLedgerRow } from './ledger-row.ts';
import { type ClientEvent, parseClientEvent, type StartRequest } from './protocol.ts';
import { SegmentQueue } from './segment-queue.ts';
import { speakSegments } from './speak-segments.ts';
import type { StreamDependencies } from './stream-dependencies.ts';
import type { StreamSlot } from './stream-slots.ts';
import { transcodeToEvents } from './transcode-to-events.ts';

export type { StreamDependencies } from './stream-dependencies.ts';

/** Synthesis's abort reason when a request ends: one instance, no stack trace per stream. */
const REQUEST_ENDED = new ApiError('invalid_request', 'The request ended.');

/** The spec's order ends with `stop`: anything after it is a protocol error. */
function afterStop(): ApiError {
  return new ApiError(
    'invalid_request',
    'No event may follow stop: one WebSocket carries one request.',
  );
}

type State = 'awaiting_start' | 'starting' | 'open' | 'stopped' | 'ended';

interface Target {
  voice: CatalogVoice;
  format: OutputFormat;
  request: StartRequest;
}

/**
 * One streaming synthesis request on one WebSocket: the spec's event protocol, credit
 * reserved as text arrives, segments synthesized as they are flushed into one continuous
 * encoded stream, and exactly one terminal event (`finish` or `error`).
 *
 * Client events are handled one at a time in arrival order. An event after `stop` is out
 * of order: the request ends with `invalid_request` instead of `finish`. A closed socket cancels synthesis at once; the ledger row then ends
 * `cancelled`, charged for the segments completed.
 */
export class StreamingRequest {
  readonly requestId = uuidv7();
  readonly #auditId = `aud_${uuidv7()}`;
  #state: State = 'awaiting_start';
  readonly #events = new ClientEventQueue(
    (event) => this.#handle(event),
    (error) => this.#fail(error),
  );
  readonly #abort = new AbortController();
  readonly #segments = new SegmentQueue();
  #idleTimer: NodeJS.Timeout | undefined;
  #buffer = '';
  #receivedChars = 0;
  #sentText = false;
  #target: Target | undefined;
  #slot: StreamSlot | undefined;
  readonly #row: StreamLedgerRow;
  #production: Promise<void> | undefined;
  #failover: RouteFailover | undefined;
  readonly #usage = new ProviderUsage();
  #charsSynthesized = 0;
  #counter: DurationCounter | undefined;
  readonly #audioCopy: StreamAudioCopy;
  #counted = false;
  /** When the first segment was flushed, until its first audio went out. */
  #firstFlushAt: number | undefined;

  constructor(
    private readonly deps: StreamDependencies,
    private readonly auth: AuthContext,
    private readonly channel: EventChannel,
  ) {
    this.#audioCopy = new StreamAudioCopy(deps.persister.enabled, deps.persistMaxBytes);
    this.#row = new StreamLedgerRow(deps.ledger, this.requestId);
  }

  /** The connection is open: the idle clock starts. */
  opened(): void {
    this.#armIdleTimer();
    this.#counted = true;
    this.deps.observer?.streamOpened();
  }

  /** One parsed JSON frame from the client. */
  receive(value: unknown): void {
    if (this.#state === 'ended') return;
    if (this.#state === 'stopped') {
      this.#fail(afterStop());
      return;
    }
    this.#armIdleTimer();
    let event: ClientEvent;
    try {
      event = parseClientEvent(value);
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#events.push(event);
  }

  /** The socket is writable again. */
  drained(): void {
    this.channel.drained();
  }

  /**
   * Ends the request from outside (its key was revoked, its workspace suspended): the
   * terminal `error` event with `error`'s code, then the close.
   */
  stop(error: ApiError): void {
    this.#fail(error);
  }

  /** The peer closed the socket or it broke: cancel whatever runs. */
  lost(): void {
    this.channel.lost();
    if (this.#state === 'ended') return;
    this.#end();
    this.#settleAfterEvents({ status: 'cancelled' });
  }

  async #handle(event: ClientEvent): Promise<void> {
    const state = this.#state;
    if (state === 'ended') return;
    // Sent before `stop` was handled, in the same read.
    if (state === 'stopped') throw afterStop();
    if (event.event === 'start') {
      if (state !== 'awaiting_start') {
        throw new ApiError(
          'invalid_request',
          'start was already sent: one WebSocket carries one request.',
        );
      }
      await this.#start(event.request);
      return;
    }
    if (state === 'awaiting_start') {
      throw new ApiError(
        'invalid_request',
        `${event.event} before start: the first event must be start.`,
      );
    }
    switch (event.event) {
      case 'text':
        return this.#text(event.text);
      case 'flush':
        this.#flush();
        return;
      case 'stop':
        this.#stop();
        return;
    }
  }

  async #start(request: StartRequest): Promise<void> {
    const { catalog, guard, slots } = this.deps;
    this.#state = 'starting';
    // Agent speech is bounded by the workspace's concurrent sessions (at session start),
    // not by the synthesis limits of the key that started the session.
    const { agentSessionId } = this.auth;
    if (agentSessionId === undefined) await guard.admit(this.auth);
    const { voice, format } = await resolveSynthesisTarget(
      catalog,
      this.auth,
      request.voice_id,
      request.output_format,
    );
    requireAlignment(voice.capabilities, request.alignment);
    const slot =
      agentSessionId === undefined
        ? await slots.acquire(this.auth.workspaceId, this.requestId)
        : { release: () => {} };
    this.#slot = slot;
    if (this.#isEnded()) {
      slot.release();
      return;
    }
    // The text that came with `start` (in the same read) is reserved with the row.
    await this.#row.open(
      {
        requestId: this.requestId,
        auditId: this.#auditId,
        workspaceId: this.auth.workspaceId,
        environment: this.auth.environment,
        apiKeyId: this.auth.keyId,
        transport: 'websocket',
        voiceId: voice.id,
        route: voice.route.id,
        outputFormat: format,
        // Agent speech is charged to its session, whatever the request says.
        partnerSessionId:
          agentSessionId === undefined
            ? request.partner_session_id
            : agentSessionLedgerId(agentSessionId),
        contextId: request.context_id,
        millicreditsPer1kChars: voice.route.pricing.millicreditsPer1kChars,
        passThrough: voice.route.pricing.passThrough,
      },
      this.#events.waiting,
    );
    this.#target = { voice, format, request };
    if (this.#isEnded()) {
      // The client left while the row was being written.
      await this.#settle({ status: 'cancelled' });
      return;
    }
    this.#state = 'open';
    const production = this.#produce(this.#target);
    this.#production = production;
    production.then(
      () => this.#succeed(),
      (error: unknown) => this.#fail(error),
    );
  }

  async #text(text: string): Promise<void> {
    const chars = codePointLength(text);
    const total = this.#receivedChars + chars;
    if (total > MAX_STREAM_TOTAL_TEXT_CHARS) {
      throw new ApiError(
        'invalid_request',
        `A request carries at most ${MAX_STREAM_TOTAL_TEXT_CHARS} characters of text in total.`,
      );
    }
    await this.#row.reserveText(this.auth.workspaceId, chars, total, this.#events.waiting);
    this.#receivedChars = total;
    this.#sentText = true;
    this.#buffer += text;
  }

  #flush(): void {
    if (this.#buffer === '') return;
    this.#firstFlushAt ??= performance.now();
    this.#segments.push(this.#buffer);
    this.#buffer = '';
  }

  #stop(): void {
    this.#flush();
    if (!this.#sentText) {
      if (!this.#target?.request.params?.voice_tags?.length) {
        throw new ApiError(
          'invalid_request',
          'stop without text: send text events, or voice_tags in start for a tag-only request.',
        );
      }
      this.#segments.push('');
    }
    this.#segments.end();
    this.#state = 'stopped';
    clearTimeout(this.#idleTimer);
  }

  async #produce(target: Target): Promise<void> {
    const { voice, format, request } = target;
    const signal = this.#abort.signal;
    this.#counter = getOutputFormatInfo(format).createDurationCounter();
    const failover = failoverFor(voice, this.requestId, this.deps.ledger, this.deps.logger);
    this.#failover = failover;
    const timeline = request.alignment === undefined ? undefined : new AlignmentTimeline();
    await transcodeToEvents({
      transcoders: this.deps.transcoders ?? inThreadTranscoder,
      format,
      opusComplexity: this.deps.opusComplexity,
      signal,
      events: {
        channel: this.channel,
        requestId: this.requestId,
        contextId: request.context_id,
        timeline,
        isEnded: () => this.#isEnded(),
        sent: (piece, seq) => this.#sent(piece, seq),
      },
      produce: (write) =>
        speakSegments({
          segments: this.#segments,
          failover,
          voiceTags: request.params?.voice_tags,
          speed: request.params?.speed,
          format,
          alignment: timeline && request.alignment && { granularity: request.alignment, timeline },
          usage: this.#usage,
          signal,
          write,
          spoken: (chars) => {
            this.#charsSynthesized += chars;
          },
        }),
    });
  }

  /** One piece of audio went out as the `audio` event numbered `seq`. */
  #sent(piece: Buffer, seq: number): void {
    this.#counter?.push(piece);
    this.#audioCopy.collect(piece);
    if (seq === 1 && this.#firstFlushAt !== undefined) {
      this.deps.observer?.firstAudio('websocket', (performance.now() - this.#firstFlushAt) / 1000);
    }
  }

  async #succeed(): Promise<void> {
    if (this.#isEnded()) return;
    const target = this.#target as Target;
    let cost: number;
    try {
      cost = await this.#closeLedger({ status: 'succeeded' });
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (this.#isEnded()) return;
    // Taken before `#end()`, which drops the copy of any request that ends another way.
    const audio = this.#audioCopy.take();
    this.#end();
    this.channel.send({
      event: 'usage',
      request_id: this.requestId,
      usage: { chars: this.#charsSynthesized, audio_ms: Math.round(this.#usage.audioMs) },
      voice_id: target.voice.id,
    } satisfies TtsServerEvent);
    this.channel.send({
      event: 'finish',
      request_id: this.requestId,
      reason: 'stop',
      cost: publicCost(cost, target.voice.route.pricing),
      audit_id: this.#auditId,
      audio_persisted: false,
      voice_route: this.#failover?.role ?? 'default',
    } satisfies TtsServerEvent);
    this.channel.close(1000, 'finish');
    this.#slot?.release();
    if (audio) {
      persistAfterFinish(this.deps.persister, {
        requestId: this.requestId,
        workspaceId: this.auth.workspaceId,
        environment: this.auth.environment,
        format: target.format,
        audio,
      });
    }
  }

  /** The terminal `error` event, then close; synthesis stops and the row is closed. */
  #fail(error: unknown): void {
    if (this.#state === 'ended') return;
    const failure = synthesisFailure(error);
    this.#end();
    this.deps.observer?.failed('websocket', failure.code);
    if (!(error instanceof ApiError)) {
      this.deps.logger.warn(
        { request_id: this.requestId, route: this.#target?.voice.route.id, err: error },
        'streaming synthesis failed',
      );
    }
    this.channel.send(errorBody(failure, this.requestId));
    this.channel.close(1000, 'error');
    this.#settleAfterEvents({ status: 'failed', errorCode: failure.code });
  }

  #end(): void {
    if (this.#counted) {
      this.#counted = false;
      this.deps.observer?.streamClosed();
    }
    this.#state = 'ended';
    clearTimeout(this.#idleTimer);
    this.#abort.abort(REQUEST_ENDED);
    this.#segments.abort();
    this.#audioCopy.discard();
  }

  #isEnded(): boolean {
    return this.#state === 'ended';
  }

  /**
   * Settles once the client event being handled is done: a `text` event may be reserving
   * credit at this moment, and the row must close after that reservation so it is
   * refunded with the rest. Events after the end are ignored, so the chain ends.
   */
  #settleAfterEvents(outcome: Pick<LedgerOutcome, 'status' | 'errorCode'>): void {
    void this.#events.idle().then(() => this.#settle(outcome));
  }

  /** After a failure or cancellation: waits for synthesis to stop, then closes the row. */
  async #settle(outcome: Pick<LedgerOutcome, 'status' | 'errorCode'>): Promise<void> {
    await this.#production?.catch(() => {});
    try {
      await this.#closeLedger(outcome);
    } catch (error) {
      this.deps.logger.error(
        { err: error, request_id: this.requestId },
        'closing ledger row failed',
      );
    } finally {
      this.#slot?.release();
    }
  }

  #closeLedger(outcome: Pick<LedgerOutcome, 'status' | 'errorCode'>): Promise<number> {
    return this.#row.close({
      ...outcome,
      charsSynthesized: this.#charsSynthesized,
      providerAudioMs: this.#usage.audioMs,
      encodedDurationMs: this.#counter?.durationMs ?? 0,
    });
  }

  #armIdleTimer(): void {
    clearTimeout(this.#idleTimer);
    const ms = this.deps.idleTimeoutMs;
    this.#idleTimer = setTimeout(() => {
      if (this.#state === 'stopped' || this.#state === 'ended') return;
      this.#fail(
        new ApiError('invalid_request', `No client event for ${Math.round(ms / 1000)} seconds.`),
      );
    }, ms);
    this.#idleTimer.unref();
  }
}
