// One OpenAPI document for every deployment: two apis configured differently (language
// models, speech-to-text engine, public addresses, prices) serve the same bytes, and those
// bytes are docs/openapi.json. What each deployment offers is `GET /v1/models`, and a
// write naming a model the deployment does not offer is refused with `invalid_request`.
import { readFileSync } from 'node:fs';
import { OPENAPI_FILE, serializeOpenApiDocument } from '../../../scripts/openapi-file.ts';
import {
  beforeAll,
  describe,
  expect,
  type FileApis,
  type FileDatabases,
  it,
  type TestDatabase,
  type TestDialect,
} from '../../fixtures/index.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

interface Deployment {
  database: TestDatabase;
  server: RunningServer;
  ws: SeededWorkspace;
}

/** An api on its own database (SQLite or PostgreSQL) with one seeded workspace. */
async function deployment(
  { databases, apis }: { databases: FileDatabases; apis: FileApis },
  dialect: TestDialect,
  env: Record<string, string>,
): Promise<Deployment> {
  const database = await databases.empty(dialect);
  const handle = await openTestDatabase(database);
  try {
    const ws = await seedWorkspace(handle);
    const server = await apis.start(database, { env });
    return { database, server, ws };
  } finally {
    await handle.close();
  }
}

describe('one OpenAPI document for every deployment', () => {
  // No language model, the embedded speech-to-text engine, default addresses and prices.
  let bare: Deployment;
  // Both vendors with their own model lists, Deepgram, public addresses, other prices and
  // limits, translation, LiveKit and Google Calendar configured.
  let configured: Deployment;

  beforeAll(
    async ({ databases, apis }) => {
      [bare, configured] = await Promise.all([
        deployment({ databases, apis }, 'sqlite', { LOCAL_LLM: 'false' }),
        deployment({ databases, apis }, 'postgres', {
          OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
          OPENAI_MODELS: 'gpt-4.1-mini,o4-mini',
          ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
          ANTHROPIC_MODELS: 'claude-haiku-4-5',
          LOCAL_LLM: 'false',
          STT_PROVIDER: 'deepgram',
          DEEPGRAM_API_KEY: 'dg-test-key',
          DEEPGRAM_MODEL: 'nova-2',
          PUBLIC_BASE_URL: 'https://api.example.com',
          PUBLIC_WS_URL: 'wss://api.example.com/v1/tts/stream',
          PRICE_NATIVE_CREDITS_PER_1K_CHARS: '7',
          BODY_LIMIT_BYTES: '2097152',
          TRANSLATION_LLM_PROVIDER: 'anthropic',
          TRANSLATION_LLM_MODEL: 'claude-haiku-4-5',
          LIVEKIT_URL: 'ws://127.0.0.1:9',
          LIVEKIT_API_KEY: 'devkey',
          LIVEKIT_API_SECRET: 'secret-of-at-least-32-characters-0123',
          GOOGLE_OAUTH_CLIENT_ID: 'client-id.apps.googleusercontent.com',
          GOOGLE_OAUTH_CLIENT_SECRET: 'client-secret',
        }),
      ]);
    },
    budget({ servers: 2 }),
  );

  const documentText = async (d: Deployment) => {
    const response = await fetch(`${d.server.url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    return response.text();
  };

  it('two apis with different configurations serve byte-identical documents', async () => {
    const [a, b] = await Promise.all([documentText(bare), documentText(configured)]);
    expect(a.length).toBeGreaterThan(0);
    expect(b).toBe(a);
  });

  it('the served document is docs/openapi.json (`npm run openapi:write` writes it)', async () => {
    const served = JSON.parse(await documentText(configured)) as object;
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(serializeOpenApiDocument(served));
  });

  it('lists every supported llm_provider and leaves llm_model an open string', async () => {
    const document = JSON.parse(await documentText(bare));
    const create = document.paths['/v1/agents'].post.requestBody.content['application/json'].schema;
    expect(create.properties.llm_provider.enum).toEqual(['openai', 'anthropic', 'local']);
    expect(create.properties.llm_model.type).toBe('string');
    expect(create.properties.llm_model.enum).toBeUndefined();
    expect(create.properties.llm_model.examples).toEqual([
      'gpt-4.1-mini',
      'claude-sonnet-4-6',
      'smollm2-135m-instruct',
    ]);
    expect(Object.keys(document.paths['/v1/models'])).toEqual(['get']);
  });

  it('GET /v1/models lists what each deployment runs', async () => {
    const [a, b] = await Promise.all(
      [bare, configured].map(async (d) => {
        const reply = await apiClient(d.server.url, d.ws.productionKey)('GET', '/v1/models');
        expect(reply.status).toBe(200);
        return reply.body;
      }),
    );
    expect(a).toEqual({
      language_models: [],
      speech_to_text: [
        { provider: 'embedded', model: 'whisper-base', streaming: false, interim_results: false },
      ],
    });
    const all = ['off', 'low', 'medium', 'high'];
    expect(b).toEqual({
      language_models: [
        { provider: 'openai', model: 'gpt-4.1-mini', thinking_levels: ['off'], tools: true },
        { provider: 'openai', model: 'o4-mini', thinking_levels: all, tools: true },
        { provider: 'anthropic', model: 'claude-haiku-4-5', thinking_levels: all, tools: true },
      ],
      speech_to_text: [
        { provider: 'deepgram', model: 'nova-2', streaming: true, interim_results: true },
      ],
    });
    const anonymous = await apiClient(bare.server.url, undefined)('GET', '/v1/models');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('unauthorized');
  });

  it('a model the deployment does not offer is refused with invalid_request', async () => {
    const create = (d: Deployment, slug: string, fields: Record<string, unknown>) =>
      apiClient(d.server.url, d.ws.productionKey)('POST', '/v1/agents', {
        slug,
        voice_id: NATIVE_VOICE,
        ...fields,
      });
    const offeredThere = await create(bare, 'not-here', {
      llm_provider: 'anthropic',
      llm_model: 'claude-haiku-4-5',
    });
    expect(offeredThere.status).toBe(400);
    expect(offeredThere.body.code).toBe('invalid_request');
    expect(offeredThere.body.detail).toBe(
      'llm_model "claude-haiku-4-5" is not offered by llm_provider "anthropic"; see GET /v1/models.',
    );

    const unknownModel = await create(configured, 'unknown-model', {
      llm_provider: 'openai',
      llm_model: 'gpt-0',
    });
    expect(unknownModel.status).toBe(400);
    expect(unknownModel.body.code).toBe('invalid_request');
    expect(unknownModel.body.detail).toBe(
      'llm_model "gpt-0" is not offered by llm_provider "openai"; see GET /v1/models.',
    );

    const unsupported = await create(configured, 'unsupported', { llm_provider: 'mistral' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.code).toBe('invalid_request');

    const offered = await create(configured, 'offered', {
      llm_provider: 'anthropic',
      llm_model: 'claude-haiku-4-5',
    });
    expect(offered.status).toBe(201);
    expect([offered.body.llm_provider, offered.body.llm_model]).toEqual([
      'anthropic',
      'claude-haiku-4-5',
    ]);
  });
});
