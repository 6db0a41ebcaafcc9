import { UpstreamProviderError } from './status.ts';

/**
 * Where an adapter reads its API key: a fixed string, or a function read on every
 * request so a rotated key takes effect without a restart.
 */
export type ApiKeySource = string | (() => string | undefined);

/** Characters allowed in an HTTP header value (visible ASCII and spaces). */
const HEADER_SAFE = /^[\x20-\x7e]+$/;

/** Result of {@link resolveApiKey}. */
export type ResolvedApiKey =
  | { readonly ok: true; readonly key: string }
  | { readonly ok: false; readonly reason: 'missing' | 'malformed' };

/**
 * The key to use now. Missing, empty or whitespace-only is `missing`; a key with
 * characters that cannot travel in a header (newline, non-ASCII) is `malformed`, so it is
 * never sent and never echoed in an error.
 */
export function resolveApiKey(source: ApiKeySource | undefined): ResolvedApiKey {
  const raw = typeof source === 'function' ? source() : source;
  const key = raw?.trim();
  if (key === undefined || key === '') return { ok: false, reason: 'missing' };
  if (!HEADER_SAFE.test(key)) return { ok: false, reason: 'malformed' };
  return { ok: true, key };
}

/**
 * The key to send for `provider`, or an `auth_missing` failure (sending nothing) when it is
 * missing or cannot travel in a header. The key never appears in the message.
 */
export function requireApiKey(source: ApiKeySource | undefined, provider: string): string {
  const key = resolveApiKey(source);
  if (key.ok) return key.key;
  throw new UpstreamProviderError(
    'auth_missing',
    key.reason === 'missing'
      ? `no ${provider} API key is configured`
      : `the configured ${provider} API key is not a valid header value`,
    { provider },
  );
}

/**
 * `text` with every occurrence of `secret` replaced, for vendor text that ends up in an
 * error message or a log line (a vendor could echo the key back).
 */
export function redactSecret(text: string, secret: string): string {
  if (secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}
