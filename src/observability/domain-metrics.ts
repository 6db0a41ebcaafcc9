import { StoreOutage } from '../ratelimit/store-outage.ts';
import type { SynthesisObserver } from '../tts/ports.ts';
import type { WaitOutcome } from '../tts/providers/wait-queue.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

/** Synthesis events into the metrics (open streams, first audio, failures by code). */
export function synthesisObserver(metrics: Metrics): SynthesisObserver {
  return {
    streamOpened: () => metrics.streamsOpen.inc(),
    streamClosed: () => metrics.streamsOpen.dec(),
    firstAudio: (transport, seconds) => metrics.timeToFirstAudio.observe({ transport }, seconds),
    failed: (transport, code) => metrics.synthesisFailures.inc({ transport, code }),
  };
}

/**
 * The outage tracker of one Redis-backed limiter: one warning when it falls back to the
 * per-process limit, one line when Redis answers again, a counter per fallback decision.
 */
export function limiterOutage(metrics: Metrics, logger: Logger, limiter: string): StoreOutage {
  return new StoreOutage(limiter, {
    outageStarted: (name, error) => {
      metrics.limiterOutage.set({ limiter: name }, 1);
      logger.warn(
        { err: error, limiter: name },
        'Redis unavailable: limiter falls back to a per-process limit until it answers again',
      );
    },
    outageEnded: (name, fallbacks) => {
      metrics.limiterOutage.set({ limiter: name }, 0);
      logger.info({ limiter: name, fallbacks }, 'Redis answers again: limiter shared again');
    },
    fellBack: (name) => metrics.limiterFallbacks.inc({ limiter: name }),
  });
}

/** Records waits of an engine or upstream queue as `awp_provider_queue_wait_seconds`. */
export function queueWaitRecorder(
  metrics: Metrics,
  pool: string,
): (waitedMs: number, outcome: WaitOutcome) => void {
  return (waitedMs, outcome) =>
    metrics.providerQueueWait.observe({ pool, outcome }, waitedMs / 1000);
}
