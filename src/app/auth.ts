import type { Kysely } from 'kysely';
import { Authenticator } from '../auth/authenticate.ts';
import { CredentialWatch } from '../auth/credential-watch.ts';
import { ApiKeyStore } from '../auth/key-store.ts';
import { StreamTokens } from '../auth/stream-tokens.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import { type Config, tokenSigningSecret } from './config.ts';
import type { Domain } from './domain.ts';

/**
 * Authentication: API keys (cached, last use flushed), short-lived stream tokens signed
 * with the deployment's secret, and the watch that ends open connections of a revoked key
 * or a suspended workspace. It serves no route of its own; it closes the watch, then the
 * key store (which writes the last uses it holds).
 */
export function authDomain(deps: { config: Config; db: Kysely<Database>; logger: Logger }) {
  const { config, logger } = deps;
  const keyStore = new ApiKeyStore(
    deps.db,
    { cacheTtlMs: config.KEY_CACHE_TTL_MS, lastUsedFlushMs: config.KEY_LAST_USED_FLUSH_MS },
    logger,
  );
  const signingSecret = tokenSigningSecret(config);
  const streamTokens = new StreamTokens(signingSecret);
  const credentials = new CredentialWatch({
    keys: keyStore,
    intervalMs: config.REVOCATION_CHECK_INTERVAL_MS,
    logger,
  });
  const domain: Domain = {
    name: 'auth',
    close: async () => {
      await credentials.close();
      await keyStore.close();
    },
  };
  return {
    domain,
    keyStore,
    signingSecret,
    streamTokens,
    authenticator: new Authenticator(keyStore, streamTokens),
    credentials,
  };
}
