import { FishAudioProvider } from '../../../../src/tts/providers/fishaudio/index.ts';
import { FakeFishAudio } from '../../../fakes/fishaudio.ts';
import { runUpstreamAdapterSuite } from '../upstream/adapter-suite.ts';

runUpstreamAdapterSuite({
  name: 'fishaudio',
  startFake: (options) => FakeFishAudio.start(options),
  makeProvider: (fake, settings = {}) =>
    new FishAudioProvider({
      baseUrl: settings.baseUrl ?? fake.url,
      apiKey: 'apiKey' in settings ? settings.apiKey : fake.apiKey,
      ...(settings.timeouts === undefined ? {} : { timeouts: settings.timeouts }),
      ...(settings.maxConcurrentRequests === undefined
        ? {}
        : { maxConcurrentRequests: settings.maxConcurrentRequests }),
      ...(settings.logger === undefined ? {} : { logger: settings.logger }),
    }),
  request: {
    text: 'The quick brown fox jumps over the lazy dog.',
    providerVoiceId: '802e3bc2b27e49c2995d23ef70e6ac89',
    model: 's2-pro',
    voiceTags: ['warm'],
  },
  spokenText: (recorded) => (recorded.body as { text: string }).text,
});
