import { z } from 'zod';
import { defineVendor } from '../vendor-descriptor.ts';
import { FishAudioCatalog } from './catalog.ts';
import { findFishAudioModel } from './models.ts';
import { FishAudioProvider, isFishAudioReferenceId } from './provider.ts';
import { FishAudioVoiceCloner } from './voice-cloning.ts';

/** Fish Audio: streaming synthesis, voice models trained from recordings, the model library. */
export const fishAudioVendor = defineVendor({
  kind: 'fishaudio',
  configShape: {
    /** Fish Audio API origin. */
    FISHAUDIO_API_BASE: z.url().default('https://api.fish.audio'),
    /** Deployment Fish Audio key, for routes without a workspace provider account. */
    FISHAUDIO_API_KEY: z.string().optional(),
    /** Price of Fish Audio routes (provider cost, passed through), credits per 1,000 characters. */
    PRICE_FISHAUDIO_CREDITS_PER_1K_CHARS: z.coerce.number().nonnegative().default(15),
  },
  settings: (config) => ({
    baseUrl: config.FISHAUDIO_API_BASE,
    apiKey: config.FISHAUDIO_API_KEY,
    creditsPer1kChars: config.PRICE_FISHAUDIO_CREDITS_PER_1K_CHARS,
  }),
  createProvider: (options) => new FishAudioProvider(options),
  createCloner: (options) => new FishAudioVoiceCloner(options),
  createCatalog: (options) => new FishAudioCatalog(options),
  findModel: findFishAudioModel,
  isVoiceId: isFishAudioReferenceId,
  recommendedCloneModel: 's2.1-pro',
  // A Fish Audio voice model cannot take more recordings; a refresh trains a new one.
  appendsRecordings: false,
});
