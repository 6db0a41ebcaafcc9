import { expect } from 'vitest';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import { FakeAnthropicMessages } from '../fakes/anthropic-messages.ts';
import { FakeOpenAiChat } from '../fakes/openai-chat.ts';
import type { FileApis } from '../fixtures/api.ts';
import type { OpenDatabase } from '../fixtures/database.ts';
import { type ApiClient, apiClient, NATIVE_VOICE } from './agents.ts';
import type { TestDatabase } from './database.ts';
import { type SeededWorkspace, seedWorkspace } from './seed.ts';
import type { RunningServer } from './server.ts';

/** A card with every field the prompt renderer uses. */
export const CONCIERGE_CARD = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: {
    name: 'Clara',
    description: '{{char}} is the night concierge of the Grand Hotel.',
    personality: 'calm, precise',
    scenario: '{{user}} arrives late.',
    first_mes: 'Good evening, {{user}}! I am {{char}}.',
    mes_example: '<START>\n{{user}}: Is the bar open?\n{{char}}: Until midnight, {{user}}.',
    system_prompt: 'You are {{char}}, talking with {{user}}.',
    post_history_instructions: 'Answer as {{char}} in two sentences at most.',
  },
};

/** The system prompt and examples `CONCIERGE_CARD` renders to for the end user Sam. */
export const CONCIERGE_SYSTEM = [
  'You are Clara, talking with Sam.',
  'Clara is the night concierge of the Grand Hotel.',
  "Clara's personality: calm, precise",
  'Scenario: Sam arrives late.',
].join('\n\n');
export const CONCIERGE_EXAMPLES = [
  'Example exchanges showing how Clara speaks (they are not part of this conversation):',
  '<example>\nSam: Is the bar open?\nClara: Until midnight, Sam.\n</example>',
].join('\n\n');
export const CONCIERGE_AFTER = 'Answer as Clara in two sentences at most.';

export interface ConversationRig {
  database: TestDatabase;
  handle: DatabaseHandle;
  server: RunningServer;
  openai: FakeOpenAiChat;
  anthropic: FakeAnthropicMessages;
  ws: SeededWorkspace;
  api: ApiClient;
  /** The workspace balance in millicredits. */
  balance(workspaceId?: string): Promise<number>;
  /** Creates and publishes an Agent; returns its id. */
  publishedAgent(fields?: Record<string, unknown>, client?: ApiClient): Promise<string>;
  /** A streamed POST of one message. */
  stream(agentId: string, body: unknown, signal?: AbortSignal): Promise<Response>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * An api (started with the file's `apis`) on the file's database `open`, with both
 * language-model fakes configured and short timeouts, and a workspace of its own with
 * credits. `close` stops the api and the fakes; the database stays the file's.
 */
export async function startConversationRig(
  { database, handle }: OpenDatabase,
  apis: FileApis,
  env: Record<string, string> = {},
): Promise<ConversationRig> {
  const ws = await seedWorkspace(handle, { credits: 1000 });
  const openai = await FakeOpenAiChat.start();
  const anthropic = await FakeAnthropicMessages.start();
  const server = await apis.start(database, {
    env: {
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: openai.apiKey ?? '',
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: anthropic.apiKey ?? '',
      LOCAL_LLM: 'false',
      LLM_FIRST_TOKEN_TIMEOUT_MS: '2000',
      LLM_IDLE_TIMEOUT_MS: '1000',
      MESSAGES_MAX_OUTPUT_TOKENS: '200',
      ...env,
    },
  });
  const api = apiClient(server.url, ws.productionKey);
  return {
    database,
    handle,
    server,
    openai,
    anthropic,
    ws,
    api,
    balance: async (workspaceId = ws.workspaceId) => {
      const row = await handle.db
        .selectFrom('workspaces')
        .select('credit_balance_millicredits')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(row.credit_balance_millicredits);
    },
    publishedAgent: async (fields = {}, client = api) => {
      const created = await client('POST', '/v1/agents', {
        slug: `conv-${++counter}`,
        voice_id: NATIVE_VOICE,
        character_card: CONCIERGE_CARD,
        ...fields,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const published = await client('POST', `/v1/agents/${created.body.id}/publish`);
      expect(published.status, JSON.stringify(published.body)).toBe(200);
      return created.body.id as string;
    },
    stream: (agentId, body, signal) =>
      fetch(`${server.url}/v1/agents/${agentId}/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ws.productionKey}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      }),
    close: async () => {
      await server.stop();
      await openai.close();
      await anthropic.close();
    },
  };
}
