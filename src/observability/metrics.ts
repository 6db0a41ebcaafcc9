import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one api process, served on the internal metrics listener
 * (`METRICS_PORT`, loopback by default): HTTP traffic, process defaults and the domain
 * figures an operator alerts on (streams, first audio, failures, ledger sweeps, limiter
 * fallbacks, engine queue waits, job queue depth).
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'awp_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'awp_http_request_duration_seconds',
    help: 'Time from request to the last byte of the response.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly inFlight = new Gauge({
    name: 'awp_http_in_flight_requests',
    help: 'Requests being served.',
    registers: [this.registry],
  });

  readonly streamsOpen = new Gauge({
    name: 'awp_tts_streams_open',
    help: 'TTS WebSocket streams open on this process.',
    registers: [this.registry],
  });

  readonly timeToFirstAudio = new Histogram({
    name: 'awp_tts_time_to_first_audio_seconds',
    help: 'From the synthesis request (one-shot) or the first flush (stream) to the first encoded audio.',
    labelNames: ['transport'] as const,
    buckets: [0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 2, 5, 10],
    registers: [this.registry],
  });

  readonly synthesisFailures = new Counter({
    name: 'awp_tts_synthesis_failures_total',
    help: 'Synthesis requests that ended in an error, by transport and public error code.',
    labelNames: ['transport', 'code'] as const,
    registers: [this.registry],
  });

  readonly ledgerSweeps = new Counter({
    name: 'awp_ledger_sweeps_total',
    help: 'Sweeps for ledger rows left open by dead processes.',
    registers: [this.registry],
  });

  readonly ledgerSweptRows = new Counter({
    name: 'awp_ledger_swept_rows_total',
    help: 'Ledger rows closed by sweeps (their process died).',
    registers: [this.registry],
  });

  readonly limiterFallbacks = new Counter({
    name: 'awp_limiter_fallbacks_total',
    help: 'Limiter checks decided by the per-process fallback because Redis did not answer.',
    labelNames: ['limiter'] as const,
    registers: [this.registry],
  });

  readonly limiterOutage = new Gauge({
    name: 'awp_limiter_outage',
    help: '1 while a Redis-backed limiter runs on its per-process fallback.',
    labelNames: ['limiter'] as const,
    registers: [this.registry],
  });

  readonly providerQueueWait = new Histogram({
    name: 'awp_provider_queue_wait_seconds',
    help: 'Waits for an engine process or an upstream slot, by pool and outcome.',
    labelNames: ['pool', 'outcome'] as const,
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly jobQueueDepth = new Gauge({
    name: 'awp_job_queue_depth',
    help: 'Jobs waiting or delayed, by queue (read from Redis at scrape time).',
    labelNames: ['queue'] as const,
    registers: [this.registry],
    collect: async () => {
      for (const [queue, read] of this.#queueDepths) {
        // A scrape during a Redis outage leaves the last value rather than failing.
        const depth = await read().catch(() => undefined);
        if (depth !== undefined) this.jobQueueDepth.set({ queue }, depth);
      }
    },
  });

  readonly #queueDepths = new Map<string, () => Promise<number>>();

  /** Reports the depth of a job queue at each scrape. */
  watchQueueDepth(queue: string, read: () => Promise<number>): void {
    this.#queueDepths.set(queue, read);
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'awp_' });
  }
}
