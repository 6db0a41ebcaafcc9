import { describe, expect, it } from 'vitest';
import {
  agentSessionCostMillicredits,
  audioCostMillicredits,
  llmCostMillicredits,
  synthesisCostMillicredits,
} from '../../../src/billing/pricing.ts';

describe('synthesisCostMillicredits', () => {
  it('prices characters per 1,000, rounded up to a whole millicredit', () => {
    expect(synthesisCostMillicredits(1000, 10_000)).toBe(10_000);
    expect(synthesisCostMillicredits(1001, 10_000)).toBe(10_010);
    // One character at 1 mc per 1,000 characters is a thousandth: it still costs one.
    expect(synthesisCostMillicredits(1, 1)).toBe(1);
    expect(synthesisCostMillicredits(2000, 0.5)).toBe(1);
    expect(synthesisCostMillicredits(2001, 0.5)).toBe(2);
  });

  it('costs nothing for no characters or a free route', () => {
    expect(synthesisCostMillicredits(0, 10_000)).toBe(0);
    expect(synthesisCostMillicredits(5000, 0)).toBe(0);
  });
});

describe('audioCostMillicredits', () => {
  it('prices audio by the millisecond, rounded up to a whole millicredit', () => {
    // 6,000 mc a minute: 0.1 mc per millisecond.
    expect(audioCostMillicredits(10_000, 6000)).toBe(1000);
    expect(audioCostMillicredits(1, 6000)).toBe(1);
    expect(audioCostMillicredits(11, 6000)).toBe(2);
    // Fractions of a millisecond (from sample counts) count to the nearest millisecond.
    expect(audioCostMillicredits(10.4, 6000)).toBe(1);
  });

  it('costs nothing for no audio or a free price', () => {
    expect(audioCostMillicredits(0, 6000)).toBe(0);
    expect(audioCostMillicredits(60_000, 0)).toBe(0);
  });
});

describe('agentSessionCostMillicredits', () => {
  const prices = { sessionMillicreditsPerMinute: 5000, sttMillicreditsPerMinute: 6000 };

  it('adds time, transcribed audio and the model calls, rounding up once', () => {
    expect(
      agentSessionCostMillicredits(
        { sessionMs: 90_000, sttMs: 20_000, llmMillicredits: 57 },
        prices,
      ),
    ).toBe(7500 + 2000 + 57);
    // 1 ms of each: 1/12 + 1/10 of a millicredit, one millicredit in all.
    expect(
      agentSessionCostMillicredits({ sessionMs: 1, sttMs: 1, llmMillicredits: 0 }, prices),
    ).toBe(1);
  });

  it('counts a price with decimals exactly', () => {
    // 3 minutes at 100 mc a minute is 300; (180000 / 60000) x 0.1 x 1000 in floats is
    // 300.00000000000006, which would round up to 301.
    const decimal = { sessionMillicreditsPerMinute: 0.1 * 1000, sttMillicreditsPerMinute: 0 };
    expect(
      agentSessionCostMillicredits({ sessionMs: 180_000, sttMs: 0, llmMillicredits: 0 }, decimal),
    ).toBe(300);
  });

  it('costs nothing for no usage', () => {
    expect(
      agentSessionCostMillicredits({ sessionMs: 0, sttMs: 0, llmMillicredits: 0 }, prices),
    ).toBe(0);
  });

  it('refuses negative durations and fractional model costs', () => {
    expect(() =>
      agentSessionCostMillicredits({ sessionMs: -1, sttMs: 0, llmMillicredits: 0 }, prices),
    ).toThrow(RangeError);
    expect(() =>
      agentSessionCostMillicredits({ sessionMs: 0, sttMs: 0, llmMillicredits: 0.5 }, prices),
    ).toThrow(RangeError);
  });
});

describe('llmCostMillicredits with prices in fractions of a millicredit', () => {
  it('rounds the exact sum up, not a float sum above it', () => {
    const prices = {
      inputMillicreditsPer1M: 0.0007 * 1000,
      outputMillicreditsPer1M: 0.0011 * 1000,
    };
    expect(llmCostMillicredits({ inputTokens: 1_000_000, outputTokens: 3_000_000 }, prices)).toBe(
      4,
    );
    expect(llmCostMillicredits({ inputTokens: 1, outputTokens: 0 }, prices)).toBe(1);
    expect(llmCostMillicredits({ inputTokens: 0, outputTokens: 0 }, prices)).toBe(0);
  });
});
