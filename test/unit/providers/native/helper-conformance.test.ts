import {
  defaultEngineHelperPath,
  NativeProvider,
} from '../../../../src/tts/providers/native/index.ts';
import { runProviderConformance } from '../conformance.ts';
import { longText } from './processes.ts';

const engineHelper = defaultEngineHelperPath();
if (engineHelper === undefined) {
  throw new Error('the long-lived engine is not built: run bash scripts/build-engine.sh');
}
let requestsServed = 0;

runProviderConformance(
  'native through long-lived engines',
  () => new NativeProvider({ engineHelper, onEngineProcess: () => (requestsServed += 1) }),
  { text: 'Hello, this is a short test sentence.', providerVoiceId: 'en-us+f3' },
  {
    workStarted: () => requestsServed,
    longRequest: { text: longText(20), providerVoiceId: 'en-us+f3' },
  },
);
