// An integrator's program, type-checked against the client generated from docs/openapi.json
// (openapi-typescript + openapi-fetch) and run against the api. It prints what it saw as
// one line of JSON. The test copies it next to a generated `./schema.ts` (so it stays out of
// tsconfig.json) and type-checks it there.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.ts';

type Voice =
  paths['/v1/voices']['get']['responses'][200]['content']['application/json']['voices'][number];

const client = createClient<paths>({
  baseUrl: process.env.AWP_BASE_URL,
  headers: { Authorization: `Bearer ${process.env.AWP_API_KEY}` },
});

const voices = await client.GET('/v1/voices');
if (!voices.data) throw new Error(`voices: ${voices.response.status}`);
const voice: Voice | undefined = voices.data.voices.find((v) =>
  v.output_formats.includes('opus_48000_64'),
);
if (!voice) throw new Error('no voice with opus_48000_64');

const speech = await client.POST('/v1/tts', {
  body: {
    text: 'Hello from a generated client.',
    voice_id: voice.id,
    output_format: 'opus_48000_64',
  },
  parseAs: 'arrayBuffer',
});
if (!speech.data) throw new Error(`speech: ${speech.response.status}`);

const models = await client.GET('/v1/models');
const model = models.data?.language_models[0];
if (!model) throw new Error('no language model offered');

const created = await client.POST('/v1/agents', {
  body: {
    slug: 'generated-client',
    voice_id: voice.id,
    llm_provider: model.provider,
    llm_model: model.model,
    character_card: {
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: {
        name: 'Clara',
        description: '{{char}} is the night concierge.',
        first_mes: 'Good evening!',
      },
    },
  },
});
if (!created.data) throw new Error(`create: ${JSON.stringify(created.error)}`);
const agentId: string = created.data.id;

const published = await client.POST('/v1/agents/{agentId}/publish', {
  params: { path: { agentId } },
});
if (!published.data) throw new Error(`publish: ${JSON.stringify(published.error)}`);

const token = await client.POST('/v1/agents/{agentId}/session-tokens', {
  params: { path: { agentId } },
  body: {},
});
if (!token.data) throw new Error(`token: ${JSON.stringify(token.error)}`);

const message = await client.POST('/v1/agents/{agentId}/messages', {
  params: { path: { agentId } },
  body: { text: 'Is the bar open?' },
});
// The route answers JSON, or server-sent events when asked: the type is the union of both.
const answer = message.data;
if (!answer || !('message' in answer)) throw new Error(`message: ${JSON.stringify(message.error)}`);

const missing = await client.GET('/v1/agents/{agentId}', {
  params: { path: { agentId: 'agent_missing' } },
});
// The error is typed: `code` is one of the codes the document lists for this route.
const code: components['schemas']['Error']['code'] | undefined = missing.error?.code;

console.log(
  JSON.stringify({
    voice: voice.id,
    speech: {
      status: speech.response.status,
      contentType: speech.response.headers.get('content-type'),
      bytes: speech.data.byteLength,
    },
    agent: { slug: created.data.slug, llm: [created.data.llm_provider, created.data.llm_model] },
    published: published.response.status,
    token: {
      status: token.response.status,
      jwtParts: token.data.token.split('.').length,
      capabilities: token.data.capabilities,
    },
    message: {
      first: answer.first_message?.text,
      answer: answer.message.text,
      role: answer.message.role,
    },
    error: { status: missing.response.status, code },
  }),
);
