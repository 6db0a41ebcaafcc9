import { afterAll, beforeAll } from 'vitest';
import { FishAudioProvider } from '../../../../src/tts/providers/fishaudio/index.ts';
import { FakeFishAudio } from '../../../fakes/fishaudio.ts';
import { runProviderConformance } from '../conformance.ts';
import { longText } from '../native/processes.ts';

let fake: FakeFishAudio;
const providers: FishAudioProvider[] = [];

beforeAll(async () => {
  fake = await FakeFishAudio.start();
});

afterAll(async () => {
  for (const provider of providers) provider.close();
  await fake.close();
});

runProviderConformance(
  'fishaudio',
  () => {
    const provider = new FishAudioProvider({ baseUrl: fake.url, apiKey: fake.apiKey });
    providers.push(provider);
    return provider;
  },
  {
    text: 'Hello, this is a short test sentence.',
    providerVoiceId: '802e3bc2b27e49c2995d23ef70e6ac89',
  },
  {
    workStarted: () => fake.requests.length,
    longRequest: {
      text: longText(8),
      providerVoiceId: '802e3bc2b27e49c2995d23ef70e6ac89',
      model: 's2-pro',
      voiceTags: ['calm'],
    },
  },
);
