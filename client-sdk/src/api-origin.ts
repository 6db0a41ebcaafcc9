/**
 * The deployment's production api origin, fixed when the app is bundled: a bundler's
 * `define` of `__AWP_API_ORIGIN__` (the package's own browser bundles take it from
 * `AWP_API_ORIGIN` at build time). Undefined in builds that do not define it.
 */
declare const __AWP_API_ORIGIN__: string | undefined;

const META_NAME = 'awp-api-origin';

/** An absolute http(s) URL's origin, or undefined. */
export function httpOriginOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function checked(value: string, where: string): string {
  const origin = httpOriginOf(value);
  if (origin === undefined) {
    throw new TypeError(`${where} must be an absolute http(s) URL (got ${JSON.stringify(value)}).`);
  }
  return origin;
}

function pageMeta(): string | undefined {
  if (typeof document === 'undefined') return undefined;
  const content = document
    .querySelector<HTMLMetaElement>(`meta[name="${META_NAME}"]`)
    ?.content.trim();
  return content ? content : undefined;
}

function buildDefine(): string | undefined {
  return typeof __AWP_API_ORIGIN__ === 'string' && __AWP_API_ORIGIN__ !== ''
    ? __AWP_API_ORIGIN__
    : undefined;
}

function pageOrigin(): string | undefined {
  return typeof location === 'undefined' ? undefined : httpOriginOf(location.href);
}

/**
 * Where the clients reach the api when `apiOrigin` is not given, the first found: the
 * page's `<meta name="awp-api-origin" content="https://api.example.com">`, the build's
 * `__AWP_API_ORIGIN__` define, the page's own origin (an api serving its own pages).
 * Undefined outside an http(s) page with neither. Throws a `TypeError` when the meta tag or
 * the define is not an absolute http(s) URL.
 */
export function defaultApiOrigin(): string | undefined {
  const meta = pageMeta();
  if (meta !== undefined) return checked(meta, `<meta name="${META_NAME}"> content`);
  const defined = buildDefine();
  if (defined !== undefined) return checked(defined, '__AWP_API_ORIGIN__');
  return pageOrigin();
}

/**
 * The `apiOrigin` option's origin, or the default. Returns a problem message (for the
 * caller's own error class) when the option is malformed or there is no default.
 */
export function resolveApiOrigin(
  value: string | undefined,
): { origin: string } | { problem: string } {
  if (value !== undefined) {
    const origin = httpOriginOf(value);
    return origin === undefined
      ? { problem: `apiOrigin must be an absolute http(s) URL (got ${JSON.stringify(value)}).` }
      : { origin };
  }
  let fallback: string | undefined;
  try {
    fallback = defaultApiOrigin();
  } catch (error) {
    return { problem: (error as Error).message };
  }
  return fallback === undefined
    ? {
        problem: `apiOrigin is needed here: the page has no <meta name="${META_NAME}">, the build no __AWP_API_ORIGIN__, and no http(s) origin of its own.`,
      }
    : { origin: fallback };
}
