import { v7 as uuidv7 } from 'uuid';
import { getOutputFormatInfo, type OutputFormat } from '../../media/formats.ts';
import { encodeAudio, type TranscoderFactory } from '../../media/transcode.ts';
import type { Ledger } from '../billing/ledger.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { CatalogVoice, ResolvedRoute, VoiceCatalog } from '../voices/catalog.ts';
import { requireAlignment } from './alignment/capability.ts';
import { alignedAudio } from './alignment/tap.ts';
import { AlignmentTimeline, type PublicTiming } from './alignment/timeline.ts';
import type { VoiceRouteRole } from './failover.ts';
import { failoverFor } from './failover-ledger.ts';
import {
  type AudioPersister,
  callerKeyId,
  callerOperatorEmail,
  type SynthesisCaller,
  type SynthesisGuard,
  type SynthesisObserver,
} from './ports.ts';
import type { AlignmentGranularity } from './providers/alignment.ts';
import type { OneShotBody } from './schemas.ts';
import type { AudioSpool, SpooledAudio } from './spool.ts';
import { ProviderUsage, synthesisFailure } from './synthesize.ts';
import { codePointLength, prepareText } from './tags.ts';
import { resolveSynthesisTarget } from './target.ts';

export interface OneShotResult {
  requestId: string;
  auditId: string;
  format: OutputFormat;
  contentType: string;
  /** The complete audio: in memory, or in a spool file past the spool's memory limit. */
  audio: Buffer | SpooledAudio;
  /** Duration of encoded playback. */
  durationMs: number;
  /** Wall time of synthesis and encoding. */
  synthesisMs: number;
  /** What the request was charged, in millicredits (the ledger's closing cost). */
  chargeMillicredits: number;
  /** The route that produced the audio (the first of the failover set, unless it failed). */
  route: ResolvedRoute;
  /** Whether the voice's default route served, or another after a failover. */
  voiceRoute: VoiceRouteRole;
  /** True when the serving route cannot apply tags and the request's tags and cues were removed. */
  tagsSkipped: boolean;
  /** With `alignment` asked for: the timing of each word or character of the audio. */
  timings?: PublicTiming[];
}

/** How one synthesis is served, beyond what the public request body says. */
export interface OneShotOptions {
  /** Serve through this route of the voice alone (the dashboard Playground's choice). */
  routeId?: string | undefined;
  /** Time the audio by word or character (the JSON answer with timestamps). */
  alignment?: AlignmentGranularity | undefined;
}

export interface OneShotDependencies {
  catalog: VoiceCatalog;
  ledger: Ledger;
  persister: AudioPersister;
  /** Holds each answer until it is complete: in memory, or on disk past its limit. */
  spool: AudioSpool;
  guard: SynthesisGuard;
  logger: Logger;
  opusComplexity?: number | undefined;
  /** Where resampling and encoding run. Default: this thread. */
  transcoders?: TranscoderFactory | undefined;
  observer?: SynthesisObserver | undefined;
  /** One-shot syntheses running at once in this process; beyond, 503 at once. Default unbounded. */
  maxConcurrent?: number | undefined;
}

/**
 * One-shot synthesis: the whole text in, the complete audio out. The ledger row (with its
 * credit reservation) is written before any audio is produced and closed at the end.
 */
export class OneShotSynthesis {
  #running = 0;

  constructor(private readonly deps: OneShotDependencies) {}

  /** One-shot syntheses running now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Runs one synthesis. Past `maxConcurrent` running ones it answers `provider_unavailable`
   * (retryable) at once: each holds an encoder and up to the spool's memory limit of audio,
   * so an unbounded number would exhaust the process rather than slow it down.
   */
  async run(
    caller: SynthesisCaller,
    requestId: string,
    body: OneShotBody,
    signal: AbortSignal,
    options: OneShotOptions = {},
  ): Promise<OneShotResult> {
    const max = this.deps.maxConcurrent ?? Number.POSITIVE_INFINITY;
    if (this.#running >= max) {
      throw new ApiError(
        'provider_unavailable',
        `This server runs ${max} syntheses at once; retry shortly.`,
        { retryAfterSeconds: 1 },
      );
    }
    this.#running += 1;
    try {
      return await this.#run(caller, requestId, body, signal, options);
    } finally {
      this.#running -= 1;
    }
  }

  async #run(
    caller: SynthesisCaller,
    requestId: string,
    body: OneShotBody,
    signal: AbortSignal,
    options: OneShotOptions,
  ): Promise<OneShotResult> {
    const started = await this.#start(caller, requestId, body, options);
    const { voice, format } = started;
    const info = getOutputFormatInfo(format);
    const run = await this.#synthesize(requestId, body, signal, options, started);
    const spoken = run.failover.prepared ?? started.prepared;
    let audio: Buffer | SpooledAudio;
    let chargeMillicredits: number;
    try {
      chargeMillicredits = await this.deps.ledger.finish(requestId, {
        status: 'succeeded',
        charsSynthesized: codePointLength(spoken.text),
        providerAudioMs: run.usage.audioMs,
        encodedDurationMs: run.counter.durationMs,
      });
      audio = await run.collected.finish();
    } catch (error) {
      await run.collected.discard();
      throw error;
    }
    if (this.deps.persister.enabled) this.#persist(caller, requestId, format, audio);
    return {
      requestId,
      auditId: started.auditId,
      format,
      contentType: info.contentType,
      audio,
      durationMs: run.counter.durationMs,
      synthesisMs: run.synthesisMs,
      chargeMillicredits,
      route: run.failover.served ?? voice.route,
      voiceRoute: run.failover.role,
      tagsSkipped: spoken.tagsSkipped,
      ...(run.timeline ? { timings: run.timeline.takeAll() } : {}),
    };
  }

  /**
   * Admits the caller, resolves the voice and format, prepares the text for the default
   * route and opens the request's ledger row with its reservation.
   */
  async #start(
    caller: SynthesisCaller,
    requestId: string,
    body: OneShotBody,
    options: OneShotOptions,
  ) {
    const { catalog, ledger, guard } = this.deps;
    await guard.admit(caller);
    const { voice, format } = await resolveSynthesisTarget(
      catalog,
      caller,
      body.voice_id,
      body.output_format,
      options.routeId,
    );
    requireAlignment(voice.capabilities, options.alignment);
    // Prepared for the default route: refuses what it cannot speak and sizes the reservation
    // (a fallback route never speaks more: it applies tags only where the voice has them).
    const prepared = prepareText(body.text, body.params?.voice_tags, voice.capabilities);
    const auditId = `aud_${uuidv7()}`;
    await ledger.start({
      requestId,
      auditId,
      workspaceId: caller.workspaceId,
      environment: caller.environment,
      apiKeyId: callerKeyId(caller),
      operatorEmail: callerOperatorEmail(caller),
      transport: 'http',
      voiceId: voice.id,
      route: voice.route.id,
      outputFormat: format,
      partnerSessionId: body.partner_session_id,
      contextId: body.context_id,
      reserveChars: codePointLength(prepared.text),
      millicreditsPer1kChars: voice.route.pricing.millicreditsPer1kChars,
      passThrough: voice.route.pricing.passThrough,
    });
    return { voice, format, prepared, auditId };
  }

  /**
   * Synthesizes (failing over between the voice's routes), encodes and collects the audio.
   * A failure discards what was collected, closes the ledger row as failed or cancelled and
   * throws the synthesis error.
   */
  async #synthesize(
    requestId: string,
    body: OneShotBody,
    signal: AbortSignal,
    options: OneShotOptions,
    { voice, format }: { voice: CatalogVoice; format: OutputFormat },
  ) {
    const { ledger } = this.deps;
    const usage = new ProviderUsage();
    const counter = getOutputFormatInfo(format).createDurationCounter();
    const collected = this.deps.spool.collector();
    let audioSeen = false;
    const started = performance.now();
    const failover = failoverFor(voice, requestId, ledger, this.deps.logger);
    const timeline = options.alignment === undefined ? undefined : new AlignmentTimeline();
    try {
      const chunks = failover.synthesize(
        {
          text: body.text,
          voiceTags: body.params?.voice_tags ?? [],
          speed: body.params?.speed,
          format,
          alignment: options.alignment,
        },
        usage,
        signal,
      );
      const pcm = timeline
        ? alignedAudio(chunks, timeline, () => failover.prepared?.text ?? body.text)
        : chunks;
      for await (const bytes of encodeAudio(pcm, format, signal, this.#encoding())) {
        if (!audioSeen) {
          audioSeen = true;
          this.deps.observer?.firstAudio('http', (performance.now() - started) / 1000);
        }
        counter.push(bytes);
        await collected.push(bytes);
      }
    } catch (error) {
      await collected.discard();
      const cancelled = signal.aborted;
      const failure = synthesisFailure(error);
      if (!cancelled) this.deps.observer?.failed('http', failure.code);
      await ledger.finish(requestId, {
        status: cancelled ? 'cancelled' : 'failed',
        errorCode: cancelled ? undefined : failure.code,
        charsSynthesized: 0,
        providerAudioMs: usage.audioMs,
        encodedDurationMs: counter.durationMs,
      });
      if (!cancelled) {
        this.deps.logger.warn(
          { request_id: requestId, route: (failover.served ?? voice.route).id, err: error },
          'one-shot synthesis failed',
        );
      }
      throw failure;
    }
    const synthesisMs = performance.now() - started;
    return { usage, counter, collected, failover, timeline, synthesisMs };
  }

  /** The encoder settings of this deployment: Opus complexity and the transcoders. */
  #encoding() {
    return {
      ...(this.deps.opusComplexity === undefined
        ? {}
        : { opusComplexity: this.deps.opusComplexity }),
      ...(this.deps.transcoders ? { transcoders: this.deps.transcoders } : {}),
    };
  }

  /**
   * Hands the audio to persistence after the answer started. Spooled audio goes as its file,
   * held until persistence has its own link or copy of it (or skipped it: persistence
   * checks the size limit itself).
   */
  #persist(
    caller: SynthesisCaller,
    requestId: string,
    format: OutputFormat,
    audio: Buffer | SpooledAudio,
  ): void {
    const { persister } = this.deps;
    const job = {
      requestId,
      workspaceId: caller.workspaceId,
      environment: caller.environment,
      format,
      contentType: getOutputFormatInfo(format).contentType,
    };
    if (Buffer.isBuffer(audio)) {
      setImmediate(() => void persister.enqueue({ ...job, audio }));
      return;
    }
    const release = audio.acquire();
    setImmediate(() => {
      void persister
        .enqueue({ ...job, audio: { file: audio.path, byteLength: audio.byteLength } })
        .finally(release);
    });
  }
}
