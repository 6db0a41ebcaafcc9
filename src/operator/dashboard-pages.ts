import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiError } from '../errors.ts';
import type { HttpResponse } from '../http/types.ts';
import type { MountedRoute } from '../http/uws/server.ts';
import { checkoutRoot } from '../system/checkout-root.ts';

/**
 * Paths of the dashboard's pages (the web app routes them itself): each answers the app's
 * `index.html`, so a page can be reloaded or linked to. Any other path under `/operator`
 * that is not the API or an asset is a 404.
 */
export const DASHBOARD_PAGE_PATHS = [
  '/operator',
  '/operator/',
  '/operator/sign-in',
  '/operator/keys',
  '/operator/webhooks',
  '/operator/members',
  '/operator/password',
  '/operator/provider-accounts',
  '/operator/voices',
  '/operator/voices/new',
  '/operator/voices/:voiceId',
  '/operator/playground',
  '/operator/streaming-sessions',
  '/operator/streaming-sessions/:sessionId',
  '/operator/agents',
  '/operator/agents/:agentId',
  '/operator/sessions',
  '/operator/sessions/:sessionId',
  '/operator/transcription',
  '/operator/transcription/:sessionId',
  '/operator/usage',
] as const;

const BODY_LIMIT_BYTES = 1024;
const ASSET_NAME = /^[A-Za-z0-9_.-]+\.(js|css|map|svg|png|woff2)$/;
const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
};

/** Headers of every dashboard file: a strict CSP (no inline script, no third-party code). */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // Recordings and generations play from blob: URLs or the operator API; vendor catalog
    // previews play from the vendor's https host.
    "media-src 'self' blob: https:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export interface DashboardPageOptions {
  /** Folder of the built dashboard; defaults to dist/dashboard of this checkout. */
  assetsDir?: string;
}

/**
 * The operator dashboard's web app under `/operator`: its pages (all `index.html`, never
 * cached) and its hashed assets (cached for a year). Files are read once and kept.
 */
export function dashboardPageRoutes(options: DashboardPageOptions = {}): MountedRoute[] {
  const dir = options.assetsDir ?? path.join(checkoutRoot(), 'dist', 'dashboard');
  const cache = new Map<string, Buffer>();
  const read = (relative: string): Buffer => {
    let body = cache.get(relative);
    if (!body) {
      const file = path.join(dir, relative);
      if (!existsSync(file)) {
        if (relative === 'index.html') {
          throw new ApiError(
            'service_unavailable',
            'The dashboard is not built: run npm run build.',
          );
        }
        throw new ApiError('not_found', 'No such dashboard file.');
      }
      body = readFileSync(file);
      cache.set(relative, body);
    }
    return body;
  };

  const page = async (): Promise<HttpResponse> => ({
    status: 200,
    headers: {
      ...SECURITY_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
    },
    body: read('index.html'),
  });

  return [
    ...DASHBOARD_PAGE_PATHS.map(
      (pattern): MountedRoute => ({
        method: 'GET',
        pattern,
        bodyLimitBytes: BODY_LIMIT_BYTES,
        handler: page,
      }),
    ),
    {
      method: 'GET',
      pattern: '/operator/assets/:file',
      bodyLimitBytes: BODY_LIMIT_BYTES,
      handler: async (request) => {
        const name = request.params.file ?? '';
        const match = ASSET_NAME.exec(name);
        if (!match) throw new ApiError('not_found', 'No such dashboard file.');
        return {
          status: 200,
          headers: {
            ...SECURITY_HEADERS,
            'content-type': CONTENT_TYPES[match[1] ?? ''] ?? 'application/octet-stream',
            // Vite puts a content hash in every asset name.
            'cache-control': 'public, max-age=31536000, immutable',
          },
          body: read(path.join('assets', name)),
        };
      },
    },
  ];
}
