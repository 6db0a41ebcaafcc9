import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import { SecretBoxError } from '../secrets/secret-box.ts';
import { postWebhook, type WebhookResponse } from './dispatch-request.ts';
import { type ClaimedDelivery, DispatchStore } from './dispatch-store.ts';
import type { WebhookEndpoints } from './endpoints.ts';
import { signedHeaders } from './signing.ts';

/** How much longer than an attempt's timeout a claim lasts, for the writes around it. */
const CLAIM_MARGIN_MS = 30_000;
const DEFAULT_MAX_IN_FLIGHT = 32;
const DEFAULT_MAX_PER_ENDPOINT = 4;

export interface WebhookDispatcherOptions {
  db: Kysely<Database>;
  /** Where each endpoint is and its current secret, read per attempt. */
  endpoints: Pick<WebhookEndpoints, 'target'>;
  logger: Logger;
  /** `WEBHOOK_RETRY_DELAYS_MS`: the pause before each retry; one attempt more than delays. */
  retryDelaysMs: readonly number[];
  /** `WEBHOOK_TIMEOUT_MS`: one attempt, from connecting to the response. */
  timeoutMs: number;
  /** `WEBHOOK_POLL_INTERVAL_MS`: pause between looks for due deliveries. */
  pollIntervalMs: number;
  /** `WEBHOOK_ALLOW_PRIVATE_NETWORKS`. */
  allowPrivateNetworks: boolean;
  /** Attempts in flight at once in this process. Default 32. */
  maxInFlight?: number;
  /**
   * Attempts in flight at once to one endpoint in this process. Default 4: a receiver that
   * hangs holds at most this many slots, and the other endpoints' deliveries go on.
   */
  maxPerEndpoint?: number;
  now?: () => Date;
}

/**
 * Sends pending webhook deliveries, in the jobs process. Every poll interval it claims due
 * deliveries (a conditional update, so among several processes on one database each
 * attempt is made once) and POSTs each signed body; a 2xx delivers it, anything else is
 * retried after the next configured delay until the delays are used up, then it fails.
 * Each endpoint gets at most `maxPerEndpoint` of the process's slots, so one slow or
 * hanging receiver does not hold up the others.
 *
 * @example
 * const dispatcher = new WebhookDispatcher({ db, endpoints, logger, retryDelaysMs: [5000],
 *   timeoutMs: 10_000, pollIntervalMs: 1000, allowPrivateNetworks: false });
 * dispatcher.start();
 * await dispatcher.close(); // waits for attempts in flight
 */
export class WebhookDispatcher {
  readonly #store: DispatchStore;
  readonly #now: () => Date;
  readonly #maxInFlight: number;
  readonly #maxPerEndpoint: number;
  readonly #inFlight = new Set<Promise<void>>();
  /** Attempts in flight per endpoint id. */
  readonly #perEndpoint = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  /** The last poll filled every free slot, so more may be due as soon as one frees. */
  #backlog = false;
  /** The last poll passed over a busy endpoint's deliveries: others may be due behind them. */
  #pollAgain = false;
  #closed = false;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.#store = new DispatchStore(options.db);
    this.#now = options.now ?? (() => new Date());
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.#maxPerEndpoint = options.maxPerEndpoint ?? DEFAULT_MAX_PER_ENDPOINT;
  }

  start(): void {
    this.#schedule(0);
  }

  /** Stops polling and waits for the attempts in flight, each bounded by the timeout. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#polling;
    await Promise.all(this.#inFlight);
  }

  #schedule(delayMs: number): void {
    if (this.#closed || this.#polling) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#polling = this.#poll()
        .catch((error: unknown) =>
          this.options.logger.warn({ err: error }, 'webhook dispatcher poll failed'),
        )
        .finally(() => {
          this.#polling = undefined;
          this.#schedule(this.#pollAgain ? 0 : this.options.pollIntervalMs);
        });
    }, delayMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    this.#pollAgain = false;
    const free = this.#maxInFlight - this.#inFlight.size;
    if (free <= 0) return;
    const now = this.#now();
    const busy = [...this.#perEndpoint]
      .filter(([, count]) => count >= this.#maxPerEndpoint)
      .map(([id]) => id);
    const due = await this.#store.due(now, free, busy);
    this.#backlog = due.length === free;
    const lockedUntil = new Date(now.getTime() + this.options.timeoutMs + CLAIM_MARGIN_MS);
    for (const delivery of due) {
      if (this.#closed) return;
      // More of a busy endpoint's deliveries than it has slots left wait for the next poll.
      if ((this.#perEndpoint.get(delivery.endpointId) ?? 0) >= this.#maxPerEndpoint) {
        this.#pollAgain = true;
        continue;
      }
      const claimed = await this.#store.claim(delivery, now, lockedUntil);
      if (claimed) this.#track(claimed.endpointId, this.#attempt(claimed));
    }
  }

  #track(endpointId: string, attempt: Promise<void>): void {
    this.#inFlight.add(attempt);
    this.#perEndpoint.set(endpointId, (this.#perEndpoint.get(endpointId) ?? 0) + 1);
    void attempt.finally(() => {
      this.#inFlight.delete(attempt);
      const left = (this.#perEndpoint.get(endpointId) ?? 1) - 1;
      if (left > 0) this.#perEndpoint.set(endpointId, left);
      else this.#perEndpoint.delete(endpointId);
      if (this.#backlog) this.#schedule(0);
    });
  }

  /** One attempt of a claimed delivery, recorded; never rejects. */
  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const context = {
      delivery_id: delivery.id,
      endpoint_id: delivery.endpointId,
      event_type: delivery.eventType,
    };
    try {
      const startedAt = this.#now();
      const response = await this.#send(delivery, startedAt);
      // The endpoint was deleted, and its deliveries with it.
      if (!response) return;
      const state = await this.#store.record(
        delivery,
        { ...response, startedAt, finishedAt: this.#now() },
        this.options.retryDelaysMs,
      );
      if (response.error !== null) {
        this.options.logger.warn(
          {
            ...context,
            attempt: delivery.attempts + 1,
            final: state === 'failed',
            error: response.error,
          },
          'webhook delivery attempt failed',
        );
      }
    } catch (error) {
      // The claim expires and a later poll tries again.
      this.options.logger.warn({ ...context, err: error }, 'webhook delivery attempt not recorded');
    }
  }

  async #send(delivery: ClaimedDelivery, at: Date): Promise<WebhookResponse | undefined> {
    let target: { url: string; secrets: string[] } | null;
    try {
      target = await this.options.endpoints.target(delivery.endpointId);
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      // The sealed secret does not open with this process's secrets key.
      this.options.logger.warn(
        { endpoint_id: delivery.endpointId, err: error },
        'webhook endpoint secret could not be opened',
      );
      return { status: null, error: 'the signing secret could not be opened', durationMs: 0 };
    }
    if (!target) return undefined;
    return postWebhook({
      url: target.url,
      headers: signedHeaders({
        eventId: delivery.eventId,
        payload: delivery.payload,
        secrets: target.secrets,
        at,
      }),
      body: delivery.payload,
      timeoutMs: this.options.timeoutMs,
      allowPrivateNetworks: this.options.allowPrivateNetworks,
    });
  }
}
