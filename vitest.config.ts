import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that speak into a LiveKit room and judge what the agent heard or when its audio
 * stopped (real-time audio over WebRTC, Silero VAD and Whisper), and the client SDK's
 * conversation test, whose Chromium and rtc-node peers connect, publish and play audio
 * within the SDK's and LiveKit's timeouts. On a 2-core machine shared with other test
 * files, a starved sender or receiver turns speech into time-stretched or concealed audio
 * that Whisper mishears, and a starved peer misses its connection timeout, which is a fact
 * about the machine, not about the product. These files run one at a time, after the rest.
 */
const REALTIME_AUDIO = [
  'test/e2e/application/callbacks.test.ts',
  'test/e2e/client-sdk/conversation.test.ts',
  'test/e2e/application/tools.test.ts',
  'test/e2e/application/handover.test.ts',
  'test/e2e/live/conversation.test.ts',
  'test/e2e/live/deepgram-and-crash.test.ts',
  'test/e2e/live/demo-start.test.ts',
  'test/integration/worker/agent-session.test.ts',
  'test/integration/worker/handover.test.ts',
  'test/integration/fleet/fleet-crash.test.ts',
  'test/integration/worker/rolling-restart.test.ts',
  'test/integration/worker/session-recording.test.ts',
  'test/integration/worker/captions.test.ts',
  'test/integration/worker/speculative-answers.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // rtc-node in the test processes logs at info, not debug (see the file).
    setupFiles: ['test/helpers/rtc-log.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    // `expect.poll` waits for something a user would see happen (a page's image loaded, a
    // row listed). Vitest's default of 1 s is a timing bound a busy machine misses; a poll
    // that passes returns as soon as it does, so a longer bound costs only failing runs.
    expect: { poll: { timeout: 20_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...REALTIME_AUDIO],
          // Integration tests mostly wait on servers, subprocesses and model inference
          // they start, on a 2-core machine shared by three test files at once: the
          // default bounds a hang, it does not measure speed (tests that wait longer set
          // their own).
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'realtime-audio',
          include: REALTIME_AUDIO,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
