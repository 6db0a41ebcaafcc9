import { z } from 'zod';
import { ERROR_CODES } from '../errors.ts';
import { codesByStatus, errorSchemaFor, routeErrorCodes } from './openapi-errors.ts';
import type { AnyRoute } from './route.ts';

export const errorSchema = z
  .object({
    event: z.literal('error'),
    request_id: z.string().describe('Server-assigned id of the failed request.'),
    code: z.enum(Object.keys(ERROR_CODES) as [string, ...string[]]),
    retryable: z.boolean().describe('Authoritative: retry only when true.'),
    detail: z.string().describe('Human-readable explanation; never match on it.'),
  })
  .meta({ title: 'Error' });

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    reused: 'inline',
  }) as JsonSchema;
  return rest;
}

/**
 * Server-sent events as they travel: each event's `data` is a line of JSON text, so its
 * schema is `contentSchema` of a string with `contentMediaType` `application/json`
 * (OpenAPI 3.1 / JSON Schema 2020-12), the way validators read event streams.
 */
function sseEventsSchema(schema: JsonSchema): JsonSchema {
  const members = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (!members) return schema;
  const key = schema.oneOf ? 'oneOf' : 'anyOf';
  return {
    ...schema,
    [key]: members.map((member) => {
      const properties = member.properties as Record<string, JsonSchema> | undefined;
      const data = properties?.data;
      if (!properties || !data) return member;
      return {
        ...member,
        properties: {
          ...properties,
          data: { type: 'string', contentMediaType: 'application/json', contentSchema: data },
        },
      };
    }),
  };
}

const REQUEST_ID_HEADER = 'Server-assigned id of this request (UUIDv7); quote it to support.';

function headerObjects(headers: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, description]) => [
      name,
      { description, schema: { type: 'string' } },
    ]),
  );
}

/** `/v1/agents/:agentId` as OpenAPI writes it: `/v1/agents/{agentId}`. */
function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The path and query parameters of a route. */
function routeParameters(route: AnyRoute): unknown[] {
  const parameters: unknown[] = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (!route.query) return parameters;
  const schema = jsonSchema(route.query, 'input') as {
    properties?: Record<string, unknown>;
    required?: string[];
    anyOf?: unknown;
    title?: string;
  };
  // A rule across parameters ("code or error") needs the query as one object: OpenAPI's
  // form style with explode sends each property as its own parameter, as before.
  if (schema.anyOf) {
    parameters.push({
      name: 'query',
      in: 'query',
      style: 'form',
      explode: true,
      required: true,
      schema,
    });
  }
  for (const [name, property] of Object.entries(schema.anyOf ? {} : (schema.properties ?? {}))) {
    parameters.push({
      name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      schema: property,
    });
  }
  return parameters;
}

/** The answers a route declares: JSON, binary media types and server-sent events. */
function declaredResponses(route: AnyRoute): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const content: Record<string, unknown> = {};
    if (spec.schema) content['application/json'] = { schema: jsonSchema(spec.schema, 'output') };
    const mediaTypes =
      spec.contentType === undefined
        ? []
        : typeof spec.contentType === 'string'
          ? [spec.contentType]
          : spec.contentType;
    for (const mediaType of mediaTypes) {
      content[mediaType] = { schema: { type: 'string', format: 'binary' } };
    }
    if (spec.events) {
      content['text/event-stream'] = {
        schema: sseEventsSchema(jsonSchema(spec.events, 'output')),
      };
    }
    responses[status] = {
      description: spec.description,
      ...(Object.keys(content).length > 0 ? { content } : {}),
      headers: headerObjects({ 'X-Request-Id': REQUEST_ID_HEADER, ...spec.headers }),
    };
  }
  return responses;
}

/**
 * A route's answers: the declared ones, an error object per status of the error codes it
 * may answer (unless declared), and the default error object.
 */
function routeResponses(route: AnyRoute): Record<string, unknown> {
  const responses = declaredResponses(route);
  for (const [status, codes] of codesByStatus(route, routeErrorCodes(route))) {
    if (responses[String(status)]) continue;
    const retryAfter = status === 429 || status === 503;
    responses[String(status)] = {
      description: `Error object; \`code\` is ${codes.map((c) => `\`${c}\``).join(' or ')}.`,
      content: { 'application/json': { schema: jsonSchema(errorSchemaFor(codes), 'output') } },
      headers: headerObjects({
        'X-Request-Id': REQUEST_ID_HEADER,
        ...(retryAfter ? { 'Retry-After': 'Seconds to wait before retrying, when known.' } : {}),
      }),
    };
  }
  responses.default = {
    description:
      'Error object; match on `code`. An unknown path answers 404 `not_found`; a method the path does not have answers 405 `method_not_allowed` with an `Allow` header.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    headers: headerObjects({ 'X-Request-Id': REQUEST_ID_HEADER }),
  };
  return responses;
}

/** A route's request body: a JSON body, or the media types it reads as they are. */
function requestBody(route: AnyRoute): Record<string, unknown> {
  if (route.body) {
    return {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
      },
    };
  }
  if (!route.requestContent) return {};
  return {
    requestBody: {
      content: Object.fromEntries(
        Object.entries(route.requestContent).map(([type, schema]) => [
          type,
          {
            schema:
              schema === 'binary'
                ? { type: 'string', format: 'binary' }
                : jsonSchema(schema, 'input'),
          },
        ]),
      ),
    },
  };
}

/** The operation object of one route. */
function operation(route: AnyRoute): Record<string, unknown> {
  const parameters = routeParameters(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
    ...(route.auth.kind === 'none' ? { security: [] } : {}),
    ...(route.auth.kind === 'agent_session_token' ? { security: [{ agentSessionToken: [] }] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...requestBody(route),
    responses: routeResponses(route),
  };
}

/** The document's description: how to authenticate, and the two WebSockets OpenAPI cannot say. */
const DOCUMENT_DESCRIPTION = [
  'Speech synthesis and voice-agent API. Authenticate with `Authorization: Bearer awp_...`.',
  '',
  'Streaming synthesis is a WebSocket at `/v1/tts/stream` (not expressible in OpenAPI):',
  'authenticate the upgrade with a workspace key as bearer header, or a stream token',
  '(`POST /v1/tts/stream-tokens`) as bearer header or `token` query parameter. Client',
  'events: `start` (once, first), `text` (1 to 5,000 characters), `flush`, `stop` (once).',
  'Server events: `audio` (`seq` from 1), `usage`, `finish`, or one `error`. Close codes:',
  '1000 after `finish` or `error`, 1008 for binary frames or invalid JSON, 1009 for frames',
  'over 64 KiB. An event after `stop` is answered with an `invalid_request` error.',
  '`finish` also carries `voice_route`: `default` when the route the catalog entry',
  'describes served, `fallback` when another route of the voice did after the default',
  'failed before any audio (same format; tags dropped when that route has none). It never',
  'names a provider or model.',
  '',
  'Realtime transcription is a WebSocket at `/v1/realtime-transcription`, authenticated the',
  'same way (a token from `POST /v1/realtime-transcription-tokens`). Client events: `start`',
  '(`audio_format` pcm_16000, pcm_24000 or pcm_48000, optional `language`, `interim_results`,',
  '`endpointing`, `partner_session_id`), audio as binary frames or base64 `audio` events,',
  '`flush`, `stop`. Server events: `started`, `transcript` (interim and final), `flushed`,',
  '`usage`, `finish`, or one `error`. Frames over 64 KiB close with 1009, invalid JSON with 1008.',
  'A frame after `stop` ends the session with an `invalid_request` error instead of `finish`.',
].join('\n');

const SECURITY_SCHEMES = {
  workspaceKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Permanent workspace API key (awp_...), scoped to one environment.',
  },
  agentSessionToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'One-use Agent session token (`POST /v1/agents/{agentId}/session-tokens`), 15 minutes.',
  },
};

/**
 * The OpenAPI 3.1 document of the given routes, generated from the same zod schemas that
 * validate requests.
 */
export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  info: { title: string; version: string },
  /** The requests the service sends to its customers' endpoints, by event name. */
  webhooks: Record<string, { summary: string; schema: z.ZodType }> = {},
): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: DOCUMENT_DESCRIPTION },
    servers: [{ url: '/' }],
    security: [{ workspaceKey: [] }],
    paths,
    ...(Object.keys(webhooks).length > 0 ? { webhooks: webhookItems(webhooks) } : {}),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { Error: jsonSchema(errorSchema, 'output') },
    },
  };
}

const WEBHOOK_HEADERS = {
  'webhook-id': 'The event id, the same on every attempt: deduplicate by it.',
  'webhook-timestamp': 'Unix seconds of this attempt; refuse ones far from now.',
  'webhook-signature':
    'Space-separated `v1,<base64>` signatures: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded part of the endpoint secret after `whsec_` (two for a day after a rotation; one must match).',
};

/** OpenAPI 3.1 `webhooks`: one signed POST per event name, its body and the answers. */
function webhookItems(
  webhooks: Record<string, { summary: string; schema: z.ZodType }>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(webhooks).map(([name, { summary, schema }]) => [
      name,
      {
        post: {
          operationId: `webhook:${name}`,
          summary,
          security: [],
          parameters: Object.entries(WEBHOOK_HEADERS).map(([header, description]) => ({
            name: header,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(schema, 'output') } },
          },
          responses: {
            '2XX': { description: 'Received. Any other answer, or none in time, is retried.' },
          },
        },
      },
    ]),
  );
}
