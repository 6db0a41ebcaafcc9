// A vitest setup file (and imported by bench/voice.ts) for its effect on the processes
// that use @livekit/rtc-node themselves, as the tests' room clients do. rtc-node's logger
// logs at debug level unless NODE_ENV is `production`, and exports no way to change it:
// its byte-stream notices ("ignoring incoming byte stream ... lk.agent.session") were half
// of a CI run's output. Its module is loaded here by path and set to `info`, which keeps
// its warnings and errors. The service's own processes are not touched.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
try {
  const loaded = require(join(dirname(require.resolve('@livekit/rtc-node')), 'log.cjs')) as {
    log?: { level: string };
  };
  if (loaded.log) loaded.log.level = 'info';
} catch {
  // Another rtc-node layout: its debug lines stay.
}
