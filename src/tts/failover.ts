import type { PcmChunk } from '../../media/pcm.ts';
import { ProviderError } from '../providers/errors.ts';
import type { ResolvedRoute } from '../voices/catalog.ts';
import { type ProviderUsage, type SegmentRequest, synthesizeSegment } from './synthesize.ts';

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
 * The client notices nothing: same request, same format (the voice only lists formats every
 * route delivers). Once a route has produced audio the request stays on it, so one
 * utterance is never spoken by two voices; a failure after that fails the request.
 */
export class RouteFailover {
  #served: ResolvedRoute | null = null;

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

  async *synthesize(
    segment: Omit<SegmentRequest, 'route'>,
    usage: ProviderUsage,
    signal: AbortSignal,
  ): AsyncGenerator<PcmChunk> {
    if (this.#served) {
      yield* synthesizeSegment({ ...segment, route: this.#served }, usage, signal);
      return;
    }
    for (let index = 0; index < this.routes.length; index += 1) {
      const route = this.routes[index]!;
      const next = this.routes[index + 1];
      const source = synthesizeSegment({ ...segment, route }, usage, signal)[
        Symbol.asyncIterator
      ]();
      let first: IteratorResult<PcmChunk>;
      try {
        first = await source.next();
      } catch (error) {
        if (signal.aborted || next === undefined || !isRetryable(error)) throw error;
        this.hooks.onFailover(route, next, error);
        continue;
      }
      this.#served = route;
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
}

function isRetryable(error: unknown): boolean {
  return error instanceof ProviderError && error.retryable;
}
