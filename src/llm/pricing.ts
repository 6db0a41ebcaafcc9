import type { LlmModelInfo, LlmUsage } from './provider.ts';

/** Prices are kept to a thousandth of a millicredit per 1M tokens, counted exactly. */
const PRICE_SCALE = 1000n;
const PER_TOKENS = 1_000_000n;

function scaledPrice(millicreditsPer1M: number): bigint {
  if (!Number.isFinite(millicreditsPer1M) || millicreditsPer1M < 0) {
    throw new RangeError(`price must be a non-negative number, got ${millicreditsPer1M}`);
  }
  return BigInt(Math.round(millicreditsPer1M * Number(PRICE_SCALE)));
}

function tokens(count: number): bigint {
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`token count must be a non-negative integer, got ${count}`);
  }
  return BigInt(count);
}

/**
 * The cost of one model call in millicredits: input and output tokens at the model's
 * prices per 1,000,000 tokens, rounded up to a whole millicredit (a call that used tokens
 * never costs nothing). Integer arithmetic, so no float error can round a cost up.
 *
 * @example
 * // 1,200 input tokens at 1,000,000 mc/1M and 300 output at 4,000,000 mc/1M
 * llmCostMillicredits({ inputTokens: 1200, outputTokens: 300 }, model) // 2400
 */
export function llmCostMillicredits(
  usage: LlmUsage,
  model: Pick<LlmModelInfo, 'inputMillicreditsPer1M' | 'outputMillicreditsPer1M'>,
): number {
  const scaled =
    tokens(usage.inputTokens) * scaledPrice(model.inputMillicreditsPer1M) +
    tokens(usage.outputTokens) * scaledPrice(model.outputMillicreditsPer1M);
  const divisor = PER_TOKENS * PRICE_SCALE;
  return Number((scaled + divisor - 1n) / divisor);
}
