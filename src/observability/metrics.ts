import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one api process, served on `/metrics`. */
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

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'awp_' });
  }
}
