import { z } from 'zod';
import { defineVendor } from '../vendor-descriptor.ts';
import { ElevenLabsCatalog } from './catalog.ts';
import { findElevenLabsModel } from './models.ts';
import { ElevenLabsProvider, isElevenLabsVoiceId } from './provider.ts';
import { ElevenLabsVoiceCloner } from './voice-cloning.ts';

/** ElevenLabs: streaming synthesis, instant voice cloning, own voices and the shared library. */
export const elevenLabsVendor = defineVendor({
  kind: 'elevenlabs',
  configShape: {
    /** ElevenLabs API origin (a fake in tests, a proxy in locked-down networks). */
    ELEVENLABS_API_BASE: z.url().default('https://api.elevenlabs.io'),
    /** Deployment ElevenLabs key, for routes without a workspace provider account. */
    ELEVENLABS_API_KEY: z.string().optional(),
    /** Price of ElevenLabs routes (provider cost, passed through), credits per 1,000 characters. */
    PRICE_ELEVENLABS_CREDITS_PER_1K_CHARS: z.coerce.number().nonnegative().default(100),
  },
  settings: (config) => ({
    baseUrl: config.ELEVENLABS_API_BASE,
    apiKey: config.ELEVENLABS_API_KEY,
    creditsPer1kChars: config.PRICE_ELEVENLABS_CREDITS_PER_1K_CHARS,
  }),
  createProvider: (options) => new ElevenLabsProvider(options),
  createCloner: (options) => new ElevenLabsVoiceCloner(options),
  createCatalog: (options) => new ElevenLabsCatalog(options),
  findModel: findElevenLabsModel,
  isVoiceId: isElevenLabsVoiceId,
  recommendedCloneModel: 'eleven_multilingual_v2',
  // Instant voice clones take more files through `POST /v1/voices/{id}/edit`.
  appendsRecordings: true,
});
