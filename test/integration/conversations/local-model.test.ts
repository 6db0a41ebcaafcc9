// One short turn on the embedded model (SmolLM2-135M) through the real route: proves the
// offline path (an answer, usage recorded and charged), not the quality of the answer.
import { existsSync } from 'node:fs';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { defaultLocalModelPath } from '../../../src/llm/registry.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { CONCIERGE_CARD } from '../../helpers/conversations.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

// Installed by scripts/setup.sh (scripts/install-llm-model.sh); missing weights fail the
// test rather than skip it: the offline path is a product feature.
const modelPath = process.env.LOCAL_LLM_MODEL_PATH ?? defaultLocalModelPath();

describeEachDialect('a text conversation on the embedded model on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;

  beforeAll(async ({ databases, apis }) => {
    expect(existsSync(modelPath), `${modelPath} missing: run scripts/install-llm-model.sh`).toBe(
      true,
    );
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle, { credits: 10 });
    server = await apis.start(database, {
      env: { LOCAL_LLM: 'true', LOCAL_LLM_MODEL_PATH: modelPath, MESSAGES_MAX_OUTPUT_TOKENS: '24' },
    });
    api = apiClient(server.url, ws.productionKey);
  });

  it('answers one turn, records its usage and charges it', async () => {
    const created = await api('POST', '/v1/agents', {
      slug: 'offline',
      voice_id: NATIVE_VOICE,
      character_card: CONCIERGE_CARD,
      llm_provider: 'local',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.llm_model).toBe('smollm2-135m-instruct');
    expect((await api('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);

    const reply = await api('POST', `/v1/agents/${created.body.id}/messages`, {
      text: 'Is the bar still open?',
      user_name: 'Sam',
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.message.text.trim().length).toBeGreaterThan(0);
    const { input_tokens: input, output_tokens: output, charge } = reply.body.usage;
    expect(input).toBeGreaterThan(50);
    expect(output).toBeGreaterThan(0);
    expect(output).toBeLessThanOrEqual(24);
    // 100 credits per 1M tokens each way: 0.1 millicredit a token, rounded up.
    const millicredits = Math.ceil((input + output) / 10);
    expect(charge).toEqual({
      credits: millicredits / 1000,
      amount: millicredits / 1_000_000,
      currency: 'USD',
    });
    const workspace = await handle.db
      .selectFrom('workspaces')
      .select('credit_balance_millicredits')
      .where('id', '=', ws.workspaceId)
      .executeTakeFirstOrThrow();
    expect(Number(workspace.credit_balance_millicredits)).toBe(10_000 - millicredits);
    const row = await handle.db
      .selectFrom('llm_requests')
      .select(['status', 'llm_provider', 'input_tokens', 'output_tokens', 'cost_millicredits'])
      .where('request_id', '=', reply.headers.get('x-request-id') ?? '')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      status: 'succeeded',
      llm_provider: 'local',
      input_tokens: input,
      output_tokens: output,
      cost_millicredits: millicredits,
    });
  }, 120_000);
});
