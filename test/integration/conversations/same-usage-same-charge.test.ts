// An Agent session and a text conversation are charged the same millicredits for the same
// tokens: the worker's meter and the conversations' ledger price them in one module.

import { loadConfig } from '../../../src/app/config.ts';
import { llmCatalogFromConfig } from '../../../src/llm/registry.ts';
import { AgentSessionMeter } from '../../../worker/agent-session/usage.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';
import { captureLogger } from '../../helpers/log-capture.ts';

const MODEL = 'gpt-4.1-mini';
// Prices with fractions of a millicredit per 1M tokens: 0.7 and 1.1 millicredits.
const PRICES = {
  PRICE_OPENAI_CREDITS_PER_1M_INPUT_TOKENS: '0.0007',
  PRICE_OPENAI_CREDITS_PER_1M_OUTPUT_TOKENS: '0.0011',
};
const TOKENS = { inputTokens: 1_000_000, outputTokens: 3_000_000 };
// 1M x 0.7 + 3M x 1.1 millicredits per 1M is exactly 4 millicredits; floating point makes
// it 4.000000000000001, which would round up to 5.
const EXACT_MILLICREDITS = 4;

describeEachDialect('the same usage on %s', (dialect) => {
  let rig: ConversationRig;

  beforeAll(async ({ databases, apis }) => {
    rig = await startConversationRig(await databases.get(dialect), apis, PRICES);
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('costs an Agent session and a text conversation the same exact millicredits', async () => {
    // The prices as the catalog holds them (millicredits per 1M), multiplied in floats.
    const [inputPer1M, outputPer1M] = [0.0007 * 1000, 0.0011 * 1000];
    const floatFormula = Math.ceil(
      (TOKENS.inputTokens * inputPer1M + TOKENS.outputTokens * outputPer1M) / 1_000_000,
    );
    expect(floatFormula).toBe(EXACT_MILLICREDITS + 1);

    // The text conversation: the api's own path, over HTTP.
    const agentId = await rig.publishedAgent({ llm_provider: 'openai', llm_model: MODEL });
    rig.openai.script({ usage: TOKENS });
    const before = await rig.balance();
    const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Hi' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.usage).toEqual({
      input_tokens: TOKENS.inputTokens,
      output_tokens: TOKENS.outputTokens,
      charge: {
        credits: EXACT_MILLICREDITS / 1000,
        amount: EXACT_MILLICREDITS / 1_000_000,
        currency: 'USD',
      },
    });
    expect(await rig.balance()).toBe(before - EXACT_MILLICREDITS);

    // The Agent session: the worker's path, from the same configuration's model catalog.
    const config = loadConfig({
      OPENAI_BASE_URL: rig.openai.baseUrl,
      OPENAI_API_KEY: rig.openai.apiKey ?? '',
      LOCAL_LLM: 'false',
      ...PRICES,
    });
    const price = llmCatalogFromConfig(config, captureLogger().logger).model('openai', MODEL);
    const meter = new AgentSessionMeter({ sessionCreditsPerMinute: 0, sttCreditsPerMinute: 0 });
    expect(meter.modelCall(TOKENS, price)).toBe(EXACT_MILLICREDITS);
    expect(meter.totalMillicredits(0)).toBe(EXACT_MILLICREDITS);
  });
});
