/**
 * Every price the service charges, turned into millicredits in one place: language-model
 * tokens, synthesized characters, transcribed audio and Agent session time. The api and the
 * agent worker both call these functions, so the same usage costs the same everywhere.
 *
 * Prices are kept to a thousandth of a millicredit and counted in integers (BigInt): a
 * price with decimals is never multiplied in floating point, so no float error can round a
 * cost up by a millicredit. Every cost is rounded up to a whole millicredit.
 */

/** 1 credit = 1,000 millicredits; 1,000 credits = 1 USD. */
export const MILLICREDITS_PER_CREDIT = 1000;

/** Price of a voice route, in millicredits per 1,000 characters. */
export interface RoutePricing {
  millicreditsPer1kChars: number;
  /** True on upstream routes billed at provider cost. */
  passThrough: boolean;
}

/** Tokens one model call (or several, summed) read and wrote. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A language model's prices in millicredits per 1,000,000 tokens. */
export interface TokenPrices {
  inputMillicreditsPer1M: number;
  outputMillicreditsPer1M: number;
}

/** What an Agent session used besides its language model, and its model calls' charges. */
export interface AgentSessionUsage {
  sessionMs: number;
  /** Audio the recognizer transcribed. */
  sttMs: number;
  /** The sum of the session's model calls, each already priced by {@link llmCostMillicredits}. */
  llmMillicredits: number;
  /** The sum of its web searches, each at the per-search price text conversations pay. */
  webSearchMillicredits?: number;
}

/** Live-session prices in millicredits per minute. */
export interface AgentSessionPrices {
  sessionMillicreditsPerMinute: number;
  sttMillicreditsPerMinute: number;
}

const PRICE_SCALE = 1000n;
const PER_1M = 1_000_000n;
const PER_1K = 1000n;
const MS_PER_MINUTE = 60_000n;

function scaledPrice(price: number): bigint {
  if (!Number.isFinite(price) || price < 0) {
    throw new RangeError(`price must be a non-negative number, got ${price}`);
  }
  return BigInt(Math.round(price * Number(PRICE_SCALE)));
}

function quantity(count: number, what: string): bigint {
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`${what} must be a non-negative integer, got ${count}`);
  }
  return BigInt(count);
}

/** Audio durations may carry fractions of a millisecond (from sample counts): whole ms. */
function milliseconds(ms: number, what: string): bigint {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`${what} must be a non-negative duration, got ${ms}`);
  }
  return BigInt(Math.round(ms));
}

/** `scaled / (per * PRICE_SCALE)`, rounded up to a whole millicredit. */
function roundedUp(scaled: bigint, per: bigint): number {
  const divisor = per * PRICE_SCALE;
  return Number((scaled + divisor - 1n) / divisor);
}

/**
 * The cost of model calls in millicredits: input and output tokens at the model's prices
 * per 1,000,000 tokens, rounded up to a whole millicredit (a call that used tokens never
 * costs nothing).
 *
 * @example
 * // 1,200 input tokens at 1,000,000 mc/1M and 300 output at 4,000,000 mc/1M
 * llmCostMillicredits({ inputTokens: 1200, outputTokens: 300 }, model) // 2400
 */
export function llmCostMillicredits(usage: TokenUsage, prices: TokenPrices): number {
  const scaled =
    quantity(usage.inputTokens, 'token count') * scaledPrice(prices.inputMillicreditsPer1M) +
    quantity(usage.outputTokens, 'token count') * scaledPrice(prices.outputMillicreditsPer1M);
  return roundedUp(scaled, PER_1M);
}

/**
 * The cost of synthesizing `chars` characters at `millicreditsPer1kChars`, rounded up to a
 * whole millicredit.
 *
 * @example synthesisCostMillicredits(1001, 10_000) // 10010
 */
export function synthesisCostMillicredits(chars: number, millicreditsPer1kChars: number): number {
  return roundedUp(
    quantity(chars, 'character count') * scaledPrice(millicreditsPer1kChars),
    PER_1K,
  );
}

/**
 * The cost of transcribing `audioMs` of audio at `millicreditsPerMinute`, rounded up to a
 * whole millicredit.
 *
 * @example audioCostMillicredits(10_000, 6000) // 1000
 */
export function audioCostMillicredits(audioMs: number, millicreditsPerMinute: number): number {
  return roundedUp(
    milliseconds(audioMs, 'audio duration') * scaledPrice(millicreditsPerMinute),
    MS_PER_MINUTE,
  );
}

/**
 * What an Agent session is charged when it ends: its time and its transcribed audio at their
 * per-minute prices, plus its model calls and web searches; the fractions of the two durations are added
 * before the one rounding up to a whole millicredit.
 *
 * @example
 * // 90 s at 5,000 mc/min, 20 s of speech at 6,000 mc/min, 57 mc of model calls
 * agentSessionCostMillicredits({ sessionMs: 90_000, sttMs: 20_000, llmMillicredits: 57 }, prices)
 * // 7500 + 2000 + 57 = 9557
 */
export function agentSessionCostMillicredits(
  usage: AgentSessionUsage,
  prices: AgentSessionPrices,
): number {
  const scaled =
    milliseconds(usage.sessionMs, 'session duration') *
      scaledPrice(prices.sessionMillicreditsPerMinute) +
    milliseconds(usage.sttMs, 'audio duration') * scaledPrice(prices.sttMillicreditsPerMinute);
  return (
    roundedUp(scaled, MS_PER_MINUTE) +
    Number(quantity(usage.llmMillicredits, 'model cost')) +
    Number(quantity(usage.webSearchMillicredits ?? 0, 'web search cost'))
  );
}
