import { z } from 'zod';
import { ElevenLabsCatalog } from '../../src/tts/providers/elevenlabs/catalog.ts';
import { findElevenLabsModel } from '../../src/tts/providers/elevenlabs/models.ts';
import { ElevenLabsProvider } from '../../src/tts/providers/elevenlabs/provider.ts';
import { ElevenLabsVoiceCloner } from '../../src/tts/providers/elevenlabs/voice-cloning.ts';
import { defineVendor } from '../../src/tts/providers/vendor-descriptor.ts';

/**
 * A third vendor, `acme`, for tests that register it beside the real ones in a test-only
 * list. It speaks ElevenLabs' wire protocol, so {@link FakeElevenLabsCatalog} (./elevenlabs-catalog.ts)
 * serves it, but it has its own name, environment variables and price.
 */
export const acmeVendor = defineVendor({
  kind: 'acme',
  configShape: {
    ACME_API_BASE: z.url(),
    ACME_API_KEY: z.string().optional(),
    PRICE_ACME_CREDITS_PER_1K_CHARS: z.coerce.number().nonnegative().default(7),
  },
  settings: (config) => ({
    baseUrl: config.ACME_API_BASE,
    apiKey: config.ACME_API_KEY,
    creditsPer1kChars: config.PRICE_ACME_CREDITS_PER_1K_CHARS,
  }),
  createProvider: (options) => new ElevenLabsProvider({ ...options, name: 'acme' }),
  createCloner: (options) => new ElevenLabsVoiceCloner(options),
  createCatalog: (options) => new ElevenLabsCatalog(options),
  findModel: findElevenLabsModel,
  isVoiceId: (id) => /^[A-Za-z0-9]{20}$/.test(id),
  recommendedCloneModel: 'eleven_multilingual_v2',
  appendsRecordings: true,
});
