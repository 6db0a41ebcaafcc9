import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { AgentSessionTokens } from '../agent-sessions/session-tokens.ts';
import type { Agents } from '../agents/agents.ts';
import type { Database } from '../db/schema.ts';
import { ApiError, unsupportedMediaTypeError } from '../errors.ts';
import type { HttpRequest, HttpResponse } from '../http/types.ts';
import type { MountedRoute } from '../http/uws/server.ts';
import { checkoutRoot } from '../system/checkout-root.ts';
import { bootstrapWorkspaceId } from '../workspaces/bootstrap.ts';

/** Label of the development key `bootstrapWorkspace` creates; the demo mints with it. */
export const DEMO_KEY_LABEL = 'bootstrap development';
const BODY_LIMIT_BYTES = 4096;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const LOOPBACK_ADDRESS =
  /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|0000:0000:0000:0000:0000:0000:0000:0001)$/;

const CONTENT_TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'demo.js': 'text/javascript; charset=utf-8',
  'demo.js.map': 'application/json; charset=utf-8',
  'demo.css': 'text/css; charset=utf-8',
};

export interface DemoRouteOptions {
  enabled: boolean;
  db: Kysely<Database>;
  agents: Agents;
  tokens: AgentSessionTokens;
  /** LiveKit URL the sessions use, for the page's `connect-src`; any ws(s) when unknown. */
  livekitUrl?: string | undefined;
  /** Folder of the built page; defaults to client-sdk/dist/demo of this checkout. */
  assetsDir?: string;
}

/**
 * The demo page (`/demo`) and its two dev-only endpoints. Everything under `/demo` answers
 * 404 unless `DEMO_PAGE` is on, the request reached the development environment, came from
 * a loopback address and named a loopback host (no DNS rebinding). The page holds no key:
 * it gets one session token per connect from `POST /demo/api/session-token`, minted with the
 * bootstrap workspace's development key (revoking that key turns the endpoint off).
 */
export function demoRoutes(options: DemoRouteOptions): MountedRoute[] {
  const dir = options.assetsDir ?? path.join(checkoutRoot(), 'client-sdk', 'dist', 'demo');
  const headers = securityHeaders(options.livekitUrl);
  const cache = new Map<string, Buffer>();

  const guard = (request: HttpRequest): void => {
    const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    if (
      !options.enabled ||
      request.environment !== 'development' ||
      !LOOPBACK_ADDRESS.test(request.remoteAddress) ||
      !LOOPBACK_HOSTS.has(host)
    ) {
      throw new ApiError('not_found', 'No route matches this path.');
    }
  };

  const asset = (name: string): HttpResponse => {
    const contentType = CONTENT_TYPES[name];
    if (!contentType) throw new ApiError('not_found', 'No such file.');
    let body = cache.get(name);
    if (!body) {
      const file = path.join(dir, name);
      if (!existsSync(file)) {
        throw new ApiError('service_unavailable', 'The demo page is not built: run npm run build.');
      }
      body = readFileSync(file);
      cache.set(name, body);
    }
    return { status: 200, headers: { ...headers, 'content-type': contentType }, body };
  };

  const route = (
    method: MountedRoute['method'],
    pattern: string,
    handle: (request: HttpRequest) => Promise<HttpResponse>,
  ): MountedRoute => ({
    method,
    pattern,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    // From the headers alone: a request the demo does not serve is refused unread.
    beforeBody: async (request) => guard(request),
    handler: handle,
  });

  return [
    route('GET', '/demo', async () => asset('index.html')),
    route('GET', '/demo/', async () => asset('index.html')),
    route('GET', '/demo/:file', async (request) => asset(request.params.file ?? '')),
    route('GET', '/demo/api/agents', async () => {
      const key = await demoKey(options.db);
      const scope = { workspaceId: key.workspace_id, environment: 'development' as const };
      const page = await options.agents.list(scope, { limit: 100 });
      const published = page.agents.filter((agent) => agent.activePublication !== null);
      return {
        status: 200,
        headers: { 'cache-control': 'no-store' },
        body: {
          agents: published.map((agent) => ({
            id: agent.id,
            slug: agent.slug,
            name: agent.draft.characterCard.data.name || agent.slug,
          })),
        },
      };
    }),
    route('POST', '/demo/api/session-token', async (request) => {
      sameOrigin(request);
      const body = parseBody(request);
      const key = await demoKey(options.db);
      const scope = { workspaceId: key.workspace_id, environment: 'development' as const };
      const published = await options.agents.activePublication(scope, body.agentId);
      if (!published) {
        throw new ApiError('agent_not_published', 'Publish the Agent before talking to it.');
      }
      if (!(await options.agents.hasPublicVoice(scope, published.voiceId))) {
        throw new ApiError('agent_not_api_ready', 'The published voice is not in the catalog.');
      }
      const { token, expiresAt } = await options.tokens.mint({
        agentId: published.agentId,
        workspaceId: key.workspace_id,
        environment: 'development',
        keyId: key.id,
        endUserId: body.endUserId,
      });
      return {
        status: 201,
        headers: { 'cache-control': 'no-store' },
        body: { token, expires_at: expiresAt.toISOString(), agent_id: published.agentId },
      };
    }),
  ];
}

function securityHeaders(livekitUrl: string | undefined): Record<string, string> {
  let connect = "'self' ws: wss:";
  if (livekitUrl) {
    const ws = new URL(livekitUrl);
    const http = new URL(livekitUrl);
    http.protocol = ws.protocol === 'wss:' ? 'https:' : 'http:';
    connect = `'self' ${ws.origin} ${http.origin}`;
  }
  return {
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data: blob:",
      "media-src 'self' blob: mediastream:",
      `connect-src ${connect}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}

/** A cross-site page must not mint tokens through a developer's browser. */
function sameOrigin(request: HttpRequest): void {
  const origin = request.headers.origin;
  const host = request.headers.host ?? '';
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
    throw new ApiError('forbidden', 'The demo endpoint answers its own page only.');
  }
  // JSON only: a cross-site form post cannot send it without a CORS preflight, which fails.
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    throw unsupportedMediaTypeError('Send application/json.');
  }
}

function parseBody(request: HttpRequest): { agentId: string; endUserId: string | undefined } {
  let value: { agent_id?: unknown; end_user_id?: unknown };
  try {
    value = JSON.parse(request.body.toString('utf8') || '{}');
  } catch {
    throw new ApiError('invalid_request', 'The body is not JSON.');
  }
  if (typeof value.agent_id !== 'string' || !UUID.test(value.agent_id)) {
    throw new ApiError('invalid_request', 'agent_id must be a UUID.');
  }
  const endUser = value.end_user_id;
  if (endUser !== undefined && (typeof endUser !== 'string' || !UUID.test(endUser))) {
    throw new ApiError('invalid_request', 'end_user_id must be a UUID.');
  }
  return { agentId: value.agent_id.toLowerCase(), endUserId: endUser?.toLowerCase() };
}

/**
 * The bootstrap workspace's development key the demo mints with. Only that workspace (by
 * its recorded id) is searched: a key another workspace labels the same is never used.
 */
async function demoKey(db: Kysely<Database>): Promise<{ id: string; workspace_id: string }> {
  const workspaceId = await bootstrapWorkspaceId(db);
  const key =
    workspaceId === undefined
      ? undefined
      : await db
          .selectFrom('api_keys')
          .select(['id', 'workspace_id'])
          .where('workspace_id', '=', workspaceId)
          .where('label', '=', DEMO_KEY_LABEL)
          .where('environment', '=', 'development')
          .where('status', '=', 'active')
          .orderBy('created_at')
          .limit(1)
          .executeTakeFirst();
  if (!key) {
    throw new ApiError(
      'service_unavailable',
      'No active bootstrap development key: the demo needs the workspace npm start creates.',
    );
  }
  return key;
}
