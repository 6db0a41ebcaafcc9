import {
  agentSessionCostMillicredits,
  llmCostMillicredits,
  MILLICREDITS_PER_CREDIT,
  type StoredSessionUsage,
  type TokenPrices,
  type TokenUsage,
} from '../../src/worker-boundary/index.ts';

/** An Agent session's per-minute prices (the api's configuration, in credits). */
export interface AgentSessionPricing {
  sessionCreditsPerMinute: number;
  sttCreditsPerMinute: number;
}

/**
 * An Agent session's usage as the worker reports it (tokens, transcribed audio, web searches, time),
 * priced by the billing module: the same tokens cost what a text conversation pays.
 */
export class AgentSessionMeter {
  #llmMillicredits = 0;
  #webSearchMillicredits = 0;
  #webSearches = 0;
  #sttMs = 0;

  constructor(private readonly pricing: AgentSessionPricing) {}

  /**
   * Records one model call at `model`'s prices (none: a model the catalog does not price,
   * free); returns its cost in millicredits.
   */
  modelCall(tokens: TokenUsage, model: TokenPrices | undefined): number {
    const cost = model ? llmCostMillicredits(tokens, model) : 0;
    this.#llmMillicredits += cost;
    return cost;
  }

  /** Records one web search made at `millicredits` (the capability's per-search price). */
  webSearchMade(millicredits: number): void {
    this.#webSearches += 1;
    this.#webSearchMillicredits += millicredits;
  }

  /** Web searches made so far and what they cost. */
  get webSearches(): { count: number; millicredits: number } {
    return { count: this.#webSearches, millicredits: this.#webSearchMillicredits };
  }

  /**
   * Usage the session's earlier jobs stored (a resumed session), their web searches
   * included: the meter goes on from it, so the session's one charge covers all of it.
   */
  carryOver(stored: StoredSessionUsage): void {
    this.#sttMs += stored.sttMs;
    this.#llmMillicredits += stored.llmMillicredits;
    this.#webSearches += stored.webSearches;
    this.#webSearchMillicredits += stored.webSearchMillicredits;
  }

  /** Records audio the recognizer transcribed. */
  transcribed(ms: number): void {
    this.#sttMs += ms;
  }

  /** What the whole session costs after `sessionMs` of time. */
  totalMillicredits(sessionMs: number): number {
    return agentSessionCostMillicredits(
      {
        sessionMs,
        sttMs: this.#sttMs,
        llmMillicredits: this.#llmMillicredits,
        webSearchMillicredits: this.#webSearchMillicredits,
      },
      {
        sessionMillicreditsPerMinute:
          this.pricing.sessionCreditsPerMinute * MILLICREDITS_PER_CREDIT,
        sttMillicreditsPerMinute: this.pricing.sttCreditsPerMinute * MILLICREDITS_PER_CREDIT,
      },
    );
  }
}
