import { describe, expect, it } from 'vitest';
import { AgentSessionMeter } from '../../../worker/agent-session/usage.ts';

describe('AgentSessionMeter', () => {
  it('charges time, transcribed audio and model calls at exact prices', () => {
    // 0.1 credits a minute for both: 100 mc a minute.
    const meter = new AgentSessionMeter({ sessionCreditsPerMinute: 0.1, sttCreditsPerMinute: 0.1 });
    const model = { inputMillicreditsPer1M: 1_000_000, outputMillicreditsPer1M: 4_000_000 };
    expect(meter.modelCall({ inputTokens: 21, outputTokens: 9 }, model)).toBe(57);
    expect(meter.modelCall({ inputTokens: 1, outputTokens: 0 }, model)).toBe(1);
    meter.transcribed(20_000.4);
    meter.transcribed(9_999.6);
    // 3 minutes (300) + 30 s of audio (50) + 58; floats would make the time 300.00000000000006.
    expect(meter.totalMillicredits(180_000)).toBe(300 + 50 + 58);
  });

  it('charges nothing for a model the catalog does not price, or for no usage', () => {
    const meter = new AgentSessionMeter({ sessionCreditsPerMinute: 5, sttCreditsPerMinute: 6 });
    expect(meter.modelCall({ inputTokens: 1000, outputTokens: 1000 }, undefined)).toBe(0);
    expect(meter.totalMillicredits(0)).toBe(0);
  });

  it('adds web searches at their price to the session charge', () => {
    const meter = new AgentSessionMeter({ sessionCreditsPerMinute: 0.1, sttCreditsPerMinute: 0 });
    meter.webSearchMade(5000);
    meter.webSearchMade(5000);
    expect(meter.webSearches).toEqual({ count: 2, millicredits: 10_000 });
    // One minute (100) plus two searches.
    expect(meter.totalMillicredits(60_000)).toBe(100 + 10_000);
  });

  it('goes on from what earlier jobs stored, their web searches included', () => {
    const meter = new AgentSessionMeter({ sessionCreditsPerMinute: 0.1, sttCreditsPerMinute: 0.1 });
    meter.carryOver({
      sttMs: 30_000,
      llmMillicredits: 58,
      webSearches: 2,
      webSearchMillicredits: 10_000,
    });
    meter.webSearchMade(5000);
    expect(meter.webSearches).toEqual({ count: 3, millicredits: 15_000 });
    // One minute (100) + 30 s of audio (50) + 58 + three searches.
    expect(meter.totalMillicredits(60_000)).toBe(100 + 50 + 58 + 15_000);
  });
});
