import type { Kysely } from 'kysely';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import type { Database } from '../db/schema.ts';
import { openVoiceCloning } from '../jobs/voice-cloning.ts';
import type { Logger } from '../observability/logger.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { VoiceCatalog } from '../voices/catalog.ts';
import { ProviderAccounts } from '../voices/provider-accounts.ts';
import { voiceRoutes } from '../voices/routes.ts';
import { VoiceStore } from '../voices/voice-store.ts';
import type { Config } from './config.ts';
import type { Domain } from './domain.ts';
import { type speechProvidersDomain, vendorPricing } from './synthesis.ts';

/**
 * Voices: the catalog over the native, neural and upstream voices with their prices, the
 * workspace's provider accounts, the `/v1/voices` routes, and the clone queue (attempts run
 * in the jobs process, or in this one on a single node), which closing closes.
 */
export function voicesDomain(deps: {
  config: Config;
  db: Kysely<Database>;
  logger: Logger;
  secretBox: SecretBox;
  speech: ReturnType<typeof speechProvidersDomain>;
}) {
  const { config, db, logger, speech } = deps;
  const store = new VoiceStore(db);
  const accounts = new ProviderAccounts(db, deps.secretBox);
  const perThousand = (credits: number) => ({
    millicreditsPer1kChars: credits * MILLICREDITS_PER_CREDIT,
    passThrough: false,
  });
  const catalog = new VoiceCatalog({
    nativeProvider: speech.nativeProvider,
    nativePricing: perThousand(config.PRICE_NATIVE_CREDITS_PER_1K_CHARS),
    liteVoices: config.NATIVE_LITE_VOICES,
    ...(speech.neural
      ? {
          neural: {
            provider: speech.neural.provider,
            voices: speech.neural.voices,
            pricing: perThousand(config.PRICE_NEURAL_CREDITS_PER_1K_CHARS),
          },
        }
      : {}),
    store,
    accounts,
    upstream: speech.upstream,
    upstreamPricing: vendorPricing(speech.vendors),
    logger,
  });
  const cloning = openVoiceCloning({ config, db, logger });
  const domain: Domain = {
    name: 'voices',
    routes: voiceRoutes(catalog),
    close: () => cloning.close(),
  };
  return { domain, store, accounts, catalog, cloning: cloning.cloning };
}
