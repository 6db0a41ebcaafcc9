import { afterAll, beforeAll } from 'vitest';
import { ElevenLabsProvider } from '../../../../src/tts/providers/elevenlabs/index.ts';
import { FakeElevenLabs } from '../../../fakes/elevenlabs.ts';
import { runProviderConformance } from '../conformance.ts';
import { longText } from '../native/processes.ts';

let fake: FakeElevenLabs;
const providers: ElevenLabsProvider[] = [];

beforeAll(async () => {
  fake = await FakeElevenLabs.start();
});

afterAll(async () => {
  for (const provider of providers) provider.close();
  await fake.close();
});

runProviderConformance(
  'elevenlabs',
  () => {
    const provider = new ElevenLabsProvider({ baseUrl: fake.url, apiKey: fake.apiKey });
    providers.push(provider);
    return provider;
  },
  { text: 'Hello, this is a short test sentence.', providerVoiceId: 'JBFqnCBsd6RMkjVDRZzb' },
  {
    workStarted: () => fake.requests.length,
    longRequest: {
      text: longText(8),
      providerVoiceId: 'JBFqnCBsd6RMkjVDRZzb',
      model: 'eleven_v3',
      voiceTags: ['calm'],
    },
  },
);
