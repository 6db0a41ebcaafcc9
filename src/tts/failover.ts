import type { ResolvedRoute } from '../voices/catalog.ts';
import { canAlign } from './alignment/capability.ts';
import type { SynthesisChunk } from './providers/alignment.ts';
import { ProviderError } from './providers/errors.ts';
import type { VoiceCapability } from './providers/provider.ts';
import { type ProviderUsage, type SegmentRequest, synthesizeSegment } from './synthesize.ts';
import { type PreparedText, prepareText } from './tags.ts';

/** Which route of its voice served a request, as responses say it (never the provider). */
export type VoiceRouteRole = 'default' | 'fallback';

/** One segment as the request gave it: text and tags are prepared per route. */
export type RawSegment = Omit<SegmentRequest, 'route'>;

export interface FailoverHooks {
  /** A route failed before its first audio with a retryable error; `next` is tried now. */
  onFailover(failed: ResolvedRoute, next: ResolvedRoute, error: unknown): void;
  /** The route that produced the request's first audio; every later segment uses it too. */
  onServe(route: ResolvedRoute): Promise<void>;
}

/**
 * Serves one synthesis request through a voice's failover set: the default route first,
 * then the next Ready enabled route whenever the current one fails with a retryable error
 * (`provider_unavailable`, timeouts, 429/5xx) before any audio of the request was produced.
 * Same request, same format: a route that does not list the request's format is never
 * tried (no silent substitution), nor one that cannot give the timings asked for. Text and tags are prepared for the route that speaks
 * them: tags apply only when the voice advertises `voice_tags` (its default route's
 * capability) and that route has them too; elsewhere they and inline cues are removed, and
 * a route left with nothing to speak is not tried. Once a route has produced audio the
 * request stays on it, so one utterance is never spoken by two voices; a failure after
 * that fails the request.
 */
export class RouteFailover {
  #served: ResolvedRoute | null = null;
  #prepared: PreparedText | null = null;

  constructor(
    private readonly routes: readonly ResolvedRoute[],
    private readonly hooks: FailoverHooks,
  ) {
    if (routes.length === 0) throw new Error('a failover set needs at least one route');
  }

  /** The route serving the request, once one produced audio. */
  get served(): ResolvedRoute | null {
    return this.#served;
  }

  /** `default` when the first route of the set serves, `fallback` after a failover. */
  get role(): VoiceRouteRole {
    return this.#served === null || this.#served === this.routes[0] ? 'default' : 'fallback';
  }

  /** The last segment as the serving route received it (chars and skipped tags). */
  get prepared(): PreparedText | null {
    return this.#prepared;
  }

  /**
   * `text` and `tags` as the route serving the request (the default until one served)
   * would speak them; throws `invalid_request` when nothing speakable remains.
   */
  prepare(text: string, tags: readonly string[] | undefined): PreparedText {
    return prepareText(text, tags, this.#capabilities(this.#served ?? this.routes[0]!));
  }

  async *synthesize(
    segment: RawSegment,
    usage: ProviderUsage,
    signal: AbortSignal,
  ): AsyncGenerator<SynthesisChunk> {
    if (this.#served) {
      const prepared = this.prepare(segment.text, segment.voiceTags);
      this.#prepared = prepared;
      yield* synthesizeSegment(this.#request(segment, this.#served, prepared), usage, signal);
      return;
    }
    const candidates = this.#candidates(segment);
    for (let index = 0; index < candidates.length; index += 1) {
      const { route, prepared } = candidates[index]!;
      const next = candidates[index + 1]?.route;
      const source = synthesizeSegment(this.#request(segment, route, prepared), usage, signal)[
        Symbol.asyncIterator
      ]();
      let first: IteratorResult<SynthesisChunk>;
      try {
        first = await source.next();
      } catch (error) {
        if (signal.aborted || next === undefined || !isRetryable(error)) throw error;
        this.hooks.onFailover(route, next, error);
        continue;
      }
      this.#served = route;
      this.#prepared = prepared;
      try {
        await this.hooks.onServe(route);
      } catch (error) {
        await source.return?.();
        throw error;
      }
      if (first.done) return;
      // The route's generator holds resources (an upstream slot, an engine) until it ends: a
      // consumer that stops at the first chunk must end it too, or they are never released.
      let finished = false;
      try {
        yield first.value;
        yield* { [Symbol.asyncIterator]: () => source };
        finished = true;
      } finally {
        if (!finished) await source.return?.();
      }
      return;
    }
  }

  /**
   * The routes that may serve this segment, in order, with its text prepared for each: the
   * default always (its preparation error is the request's), the others only when they
   * deliver the format and have something to speak.
   */
  #candidates(segment: RawSegment): { route: ResolvedRoute; prepared: PreparedText }[] {
    const [first, ...others] = this.routes;
    const candidates = [{ route: first!, prepared: this.#prepareFor(first!, segment) }];
    for (const route of others) {
      if (!route.profile.outputFormats.includes(segment.format)) continue;
      const { alignment } = segment;
      if (alignment !== undefined && !canAlign(route.profile.capabilities, alignment)) continue;
      try {
        candidates.push({ route, prepared: this.#prepareFor(route, segment) });
      } catch {
        // Nothing speakable on this route (a tag-only request on a route without tags).
      }
    }
    return candidates;
  }

  #prepareFor(route: ResolvedRoute, segment: RawSegment): PreparedText {
    return prepareText(segment.text, segment.voiceTags, this.#capabilities(route));
  }

  /** A route applies tags only when the voice advertises them and the route has them. */
  #capabilities(route: ResolvedRoute): readonly VoiceCapability[] {
    const advertised = this.routes[0]!.profile.capabilities;
    return route.profile.capabilities.filter((capability) => advertised.includes(capability));
  }

  #request(segment: RawSegment, route: ResolvedRoute, prepared: PreparedText): SegmentRequest {
    return { ...segment, route, text: prepared.text, voiceTags: prepared.voiceTags };
  }
}

function isRetryable(error: unknown): boolean {
  return error instanceof ProviderError && error.retryable;
}
