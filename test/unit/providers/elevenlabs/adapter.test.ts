import { ElevenLabsProvider } from '../../../../src/tts/providers/elevenlabs/index.ts';
import { FakeElevenLabs } from '../../../fakes/elevenlabs.ts';
import { runUpstreamAdapterSuite } from '../upstream/adapter-suite.ts';

runUpstreamAdapterSuite({
  name: 'elevenlabs',
  startFake: (options) => FakeElevenLabs.start(options),
  makeProvider: (fake, settings = {}) =>
    new ElevenLabsProvider({
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
    providerVoiceId: 'JBFqnCBsd6RMkjVDRZzb',
    model: 'eleven_v3',
    voiceTags: ['warm'],
  },
  spokenText: (recorded) => (recorded.body as { text: string }).text,
});
