import { describe, expect, it } from 'vitest';
import { llmCostMillicredits } from '../../../src/billing/pricing.ts';

// Defaults of the OpenAI-compatible provider: 1,000 / 4,000 credits per 1M tokens.
const openai = { inputMillicreditsPer1M: 1_000_000, outputMillicreditsPer1M: 4_000_000 };

describe('llmCostMillicredits', () => {
  it('prices input and output tokens separately per 1M tokens', () => {
    expect(llmCostMillicredits({ inputTokens: 1_000_000, outputTokens: 0 }, openai)).toBe(
      1_000_000,
    );
    expect(llmCostMillicredits({ inputTokens: 0, outputTokens: 1_000_000 }, openai)).toBe(
      4_000_000,
    );
    expect(llmCostMillicredits({ inputTokens: 1200, outputTokens: 300 }, openai)).toBe(2400);
  });

  it('rounds up to a whole millicredit', () => {
    // 1 input token at 1,000,000 mc/1M is exactly 1 mc; at 100 mc/1M it is 0.0001 mc.
    expect(llmCostMillicredits({ inputTokens: 1, outputTokens: 0 }, openai)).toBe(1);
    const cheap = { inputMillicreditsPer1M: 100, outputMillicreditsPer1M: 100 };
    expect(llmCostMillicredits({ inputTokens: 1, outputTokens: 0 }, cheap)).toBe(1);
    expect(llmCostMillicredits({ inputTokens: 10_000, outputTokens: 0 }, cheap)).toBe(1);
    expect(llmCostMillicredits({ inputTokens: 10_001, outputTokens: 0 }, cheap)).toBe(2);
    // 3 tokens at 1/3 credit... a price with decimals is counted exactly, not as 1.0000001.
    const decimal = { inputMillicreditsPer1M: 333_333.333, outputMillicreditsPer1M: 0 };
    expect(llmCostMillicredits({ inputTokens: 3, outputTokens: 0 }, decimal)).toBe(1);
    expect(llmCostMillicredits({ inputTokens: 3_000_000, outputTokens: 0 }, decimal)).toBe(
      1_000_000,
    );
  });

  it('costs nothing for no tokens or a free model, and handles large counts exactly', () => {
    expect(llmCostMillicredits({ inputTokens: 0, outputTokens: 0 }, openai)).toBe(0);
    const free = { inputMillicreditsPer1M: 0, outputMillicreditsPer1M: 0 };
    expect(llmCostMillicredits({ inputTokens: 5000, outputTokens: 5000 }, free)).toBe(0);
    const pricey = { inputMillicreditsPer1M: 15_000_000, outputMillicreditsPer1M: 75_000_000 };
    expect(llmCostMillicredits({ inputTokens: 2_000_000_000, outputTokens: 1 }, pricey)).toBe(
      30_000_000_075,
    );
  });

  it('refuses negative or fractional token counts and negative prices', () => {
    expect(() => llmCostMillicredits({ inputTokens: -1, outputTokens: 0 }, openai)).toThrow(
      RangeError,
    );
    expect(() => llmCostMillicredits({ inputTokens: 1.5, outputTokens: 0 }, openai)).toThrow(
      RangeError,
    );
    expect(() =>
      llmCostMillicredits(
        { inputTokens: 1, outputTokens: 0 },
        { inputMillicreditsPer1M: -1, outputMillicreditsPer1M: 0 },
      ),
    ).toThrow(RangeError);
  });
});
