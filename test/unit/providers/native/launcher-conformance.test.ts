import { NativeProvider } from '../../../../src/tts/providers/native/index.ts';
import { runProviderConformance } from '../conformance.ts';
import { longText } from './processes.ts';

let processesServed = 0;

runProviderConformance(
  'native through the engine launcher',
  () => new NativeProvider({ launcher: true, onEngineProcess: () => (processesServed += 1) }),
  { text: 'Hello, this is a short test sentence.', providerVoiceId: 'en-us+f3' },
  {
    workStarted: () => processesServed,
    longRequest: { text: longText(20), providerVoiceId: 'en-us+f3' },
  },
);
