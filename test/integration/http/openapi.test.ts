// The OpenAPI document is exact: valid, the same routes as the router, every error
// response and header described, audio media types as sent, and the tag-only rule.
import { Validator } from '@seriousme/openapi-schema-validator';
import { getOutputFormatInfo, OUTPUT_FORMATS } from '../../../media/formats.ts';
import { createApi } from '../../../src/app/app.ts';
import { loadConfig } from '../../../src/app/config.ts';
import { openDatabase } from '../../../src/db/connect.ts';
import { ERROR_CODES } from '../../../src/errors.ts';
import { buildOpenApiDocument } from '../../../src/http/openapi.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { createRedis } from '../../../src/redis/client.ts';
import { beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type RunningServer, serviceEnv } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content?: Record<string, { schema: { properties?: { code?: { enum?: string[] } } } }>;
    }
  >;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

describe('the OpenAPI document', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;
  let document: Document;

  beforeAll(
    async ({ databases, apis }) => {
      database = await databases.empty('sqlite');
      server = await apis.start(database);
      document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as Document;
    },
    budget({ servers: 1 }),
  );

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(
      document as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
  });

  it('lists exactly the routes the router mounts', async () => {
    const config = loadConfig(serviceEnv(database));
    const handle = await openDatabase({ databaseUrl: undefined, dataDir: database.dataDir });
    const redis = createRedis(config.REDIS_URL);
    const api = createApi({ config, db: handle.db, redis, logger: createLogger('silent') });
    try {
      // The demo page (`/demo`, development listener only) is not part of the API, nor are
      // the operator dashboard and its internal API (`/operator`, docs/decisions.md).
      const mounted = api.server.mountedRoutes
        .filter((r) => !/^\/(demo|operator)(\/|$)/.test(r.pattern))
        .map((r) => `${r.method} ${r.pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
        .sort();
      const built = buildOpenApiDocument(api.routes, { title: 't', version: 'v' }) as Document;
      const documented = (doc: Document) =>
        Object.entries(doc.paths)
          .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
          .sort();
      expect(documented(built)).toEqual(mounted);
      expect(documented(document)).toEqual(mounted);
    } finally {
      await api.close();
      redis.disconnect();
      await handle.close();
    }
  });

  it('describes every error a route answers, with its status, codes and headers', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(operation.responses['500'], where).toBeDefined();
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(response.headers?.['X-Request-Id'], `${where} ${status}`).toBeDefined();
          const codes = response.content?.['application/json']?.schema.properties?.code?.enum;
          if (status === 'default' || !codes) continue;
          // A body over the limit and a wrong content type are the spec's invalid_request.
          if (status === '413' || status === '415') {
            expect(codes, `${where} ${status}`).toEqual(['invalid_request']);
            continue;
          }
          for (const code of codes) {
            expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status, `${where} ${code}`).toBe(
              Number(status),
            );
          }
          if (status === '429') expect(response.headers?.['Retry-After']).toBeDefined();
        }
        if (operation.security?.length !== 0) {
          expect(operation.responses['401'], where).toBeDefined();
          expect(operation.responses['403'], where).toBeDefined();
        }
        if (operation.requestBody) {
          for (const status of ['400', '413', '415']) {
            expect(operation.responses[status], `${where} ${status}`).toBeDefined();
          }
        }
      }
    }
    const tts = document.paths['/v1/tts']?.post;
    const statuses = Object.keys(tts?.responses ?? {}).sort();
    expect(statuses).toEqual(
      [
        '200',
        '400',
        '401',
        '402',
        '403',
        '404',
        '413',
        '415',
        '429',
        '500',
        '502',
        '503',
        'default',
      ].sort(),
    );
    expect(
      tts?.responses['503']?.content?.['application/json']?.schema.properties?.code?.enum,
    ).toEqual(
      expect.arrayContaining([
        'provider_unavailable',
        'provider_auth_missing',
        'organization_account_missing',
      ]),
    );
  });

  it('documents text conversations: JSON and server-sent answers and their errors', () => {
    const messages = document.paths['/v1/agents/{agentId}/messages'];
    const post = messages?.post;
    expect(Object.keys(post?.responses['200']?.content ?? {}).sort()).toEqual([
      'application/json',
      'text/event-stream',
    ]);
    expect(Object.keys(post?.responses ?? {}).sort()).toEqual(
      [
        '200',
        '400',
        '401',
        '402',
        '403',
        '404',
        '409',
        '413',
        '415',
        '500',
        '502',
        '503',
        'default',
      ].sort(),
    );
    expect(
      post?.responses['409']?.content?.['application/json']?.schema.properties?.code?.enum,
    ).toEqual(['conflict', 'agent_not_published']);
    const events = post?.responses['200']?.content?.['text/event-stream']?.schema as unknown as {
      oneOf: { properties: { event: { const: string } } }[];
    };
    expect(events.oneOf.map((e) => e.properties.event.const)).toEqual([
      'conversation',
      'delta',
      'tool_call',
      'tool_result',
      'message',
      'usage',
      'done',
      'error',
    ]);
    expect(Object.keys(messages?.get?.responses ?? {}).sort()).toEqual(
      ['200', '400', '401', '403', '404', '500', '503', 'default'].sort(),
    );
  });

  it('states the formats a fuzzer needs: cursors, language tags, time zones, callback values', () => {
    const query = (path: string, name: string) =>
      (document.paths[path]?.get?.parameters ?? []).find((p) => p.name === name)?.schema;
    for (const path of ['/v1/agent-sessions', '/v1/realtime-transcription-sessions']) {
      const pattern = new RegExp(query(path, 'cursor')?.pattern as string);
      expect(pattern.test('0'), path).toBe(false);
      expect(pattern.test('2026-11-28T10:00:00.000Z~01a2227e-21a5-7620-b685-3aca0b95c2c2')).toBe(
        true,
      );
    }
    const deliveries = new RegExp(
      query('/v1/webhooks/{webhookId}/deliveries', 'cursor')?.pattern as string,
    );
    expect(deliveries.test('2026-11-28T10:00:00.000Z~whd_cAKocC3jkRtgP9BRa25l')).toBe(true);
    expect(deliveries.test('whd_cAKocC3jkRtgP9BRa25l')).toBe(false);
    // The callback's query is one form-exploded object: it can say "code or error".
    const callback = query('/v1/google-calendar/oauth/callback', 'query') as {
      properties: Record<string, unknown>;
      anyOf: unknown;
    };
    for (const name of ['state', 'code', 'error', 'scope']) {
      expect(callback.properties[name]).toMatchObject({ minLength: 1 });
    }
    expect(callback.anyOf).toEqual([{ required: ['code'] }, { required: ['error'] }]);
    const create = document.paths['/v1/agents']?.post?.requestBody?.content['application/json']
      ?.schema as { properties: Record<string, { anyOf?: { pattern?: string }[] }> };
    const language = new RegExp(
      create.properties.language?.anyOf?.find((s) => s.pattern)?.pattern as string,
    );
    expect(['en', 'es-MX', 'zh-Hans', 'sr-Latn-RS'].every((t) => language.test(t))).toBe(true);
    expect(['AA-0000000-0000000', '0', 'e'].some((t) => language.test(t))).toBe(false);
    const messages = document.paths['/v1/agents/{agentId}/messages']?.post?.requestBody?.content[
      'application/json'
    ]?.schema as { properties: Record<string, { enum?: string[] }> };
    expect(messages.properties.time_zone?.enum).toContain('Europe/Paris');
    expect(messages.properties.time_zone?.enum).not.toContain('');
  });

  it('lists the media types one-shot synthesis really sends', async () => {
    const content = document.paths['/v1/tts']?.post?.responses['200']?.content ?? {};
    const expected = [...new Set(OUTPUT_FORMATS.map((f) => getOutputFormatInfo(f).contentType))];
    expect(Object.keys(content).sort()).toEqual(expected.sort());
    expect(expected).toContain('audio/ogg; codecs=opus');
    expect(expected).toContain('audio/aac');
    expect(expected).toContain('audio/pcm;rate=24000;channels=1');
  });

  it('expresses the tag-only rule and the output formats in the one-shot body', () => {
    const schema = document.paths['/v1/tts']?.post?.requestBody?.content['application/json']
      ?.schema as {
      anyOf: unknown[];
      properties: { output_format: { enum: string[] } };
    };
    expect(schema.properties.output_format.enum).toEqual([...OUTPUT_FORMATS]);
    expect(schema.anyOf).toEqual([
      { properties: { text: { minLength: 1 } } },
      { required: ['params'], properties: { params: { required: ['voice_tags'] } } },
    ]);
  });

  it('describes the webhooks the service sends: each event’s body and its signature headers', () => {
    const webhooks = (
      document as unknown as {
        webhooks: Record<
          string,
          {
            post: Operation & {
              parameters: { name: string; in: string; required: boolean }[];
            };
          }
        >;
      }
    ).webhooks;
    expect(Object.keys(webhooks)).toEqual([
      'agent_session.started',
      'agent_session.ended',
      'transcription_session.started',
      'transcription_session.ended',
      'streaming_session.started',
      'streaming_session.ended',
      'webhook.test',
    ]);
    for (const [name, { post }] of Object.entries(webhooks)) {
      expect(post.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      const body = post.requestBody?.content['application/json']?.schema as {
        required: string[];
        additionalProperties: boolean;
        properties: { type: { const: string }; data: { required: string[] } };
      };
      expect(body.required, name).toEqual(['id', 'type', 'timestamp', 'data']);
      expect(body.additionalProperties, name).toBe(false);
      expect(body.properties.type.const, name).toBe(name);
      expect(Object.keys(post.responses)).toEqual(['2XX']);
    }
    const ended = webhooks['agent_session.ended']?.post.requestBody?.content['application/json']
      ?.schema as { properties: { data: { required: string[] } } };
    expect(ended.properties.data.required).toEqual(
      expect.arrayContaining([
        'session_id',
        'state',
        'usage',
        'recording',
        'end_user_id',
        'chat_session_id',
        'transcript',
      ]),
    );
    const dataOf = (name: string) => {
      const schema = webhooks[name]?.post.requestBody?.content['application/json']?.schema as
        | { properties: { data: { required: string[] } } }
        | undefined;
      return schema?.properties.data.required;
    };
    for (const name of ['transcription_session.started', 'transcription_session.ended']) {
      expect(dataOf(name), name).toEqual(
        expect.arrayContaining(['session_id', 'status', 'cost', 'transcript', 'segments']),
      );
    }
    for (const name of ['streaming_session.started', 'streaming_session.ended']) {
      expect(dataOf(name), name).toEqual(
        expect.arrayContaining(['id', 'partner_session_id', 'status', 'usage', 'events']),
      );
    }
  });
});
