// The job entry of the agent worker. The LiveKit agents framework forks one process per
// job (one Agent session) and imports this file by path in it: `prewarm` runs once per
// process (models), `entry` once per session.
import { defineAgent, type JobContext, type JobProcess, type VAD } from '@livekit/agents';
import { createSttProvider, loadSttConfig } from '../src/stt/config.ts';
import type { SttProvider } from '../src/stt/provider.ts';
import { SileroVad } from '../src/stt/vad/livekit-vad.ts';
import { createLogger, loadConfig, WorkerApi } from '../src/worker-boundary/index.ts';
import { LeaseThread, leaseStoreLocation } from './agent-session/job-lease.ts';
import { runAgentSession } from './agent-session/session.ts';
import { loadWorkerConfig } from './config.ts';

interface ProcessData extends Record<string, unknown> {
  vad: VAD;
  stt: SttProvider;
  /** `STT_LANGUAGE`, when set. */
  sttLanguage: string | undefined;
  /** `STT_EARLY_START_PAUSE_MS`. */
  earlyStartPauseMs: number;
  leaseThread: LeaseThread;
}

export default defineAgent({
  prewarm: async (proc: JobProcess) => {
    const logger = createLogger(process.env.LOG_LEVEL ?? 'info', 'worker');
    // The lease thread starts now: a session's first seconds are its busiest.
    proc.userData.leaseThread = new LeaseThread(leaseStoreLocation(loadConfig()));
    // Silero (the api's realtime transcription uses the same detector): the usual settings,
    // except a shorter silence before a turn ends (snappier replies).
    proc.userData.vad = await SileroVad.load(logger, {
      minSilenceMs: loadWorkerConfig().AGENT_VAD_MIN_SILENCE_MS,
    });
    const sttConfig = loadSttConfig();
    const stt = createSttProvider(sttConfig, logger);
    proc.userData.stt = stt;
    proc.userData.sttLanguage = sttConfig.STT_LANGUAGE;
    proc.userData.earlyStartPauseMs = sttConfig.STT_EARLY_START_PAUSE_MS;
    // Load the speech model while the process waits for a session, so a user's first words
    // are not kept waiting for it (2-3 s, more on a busy machine). Not awaited: a slow or
    // failed start must not hold the process back; the first utterance then waits for it.
    stt.warmUp?.().catch((error: unknown) => {
      logger.warn(
        { err: error },
        'speech-to-text warm-up failed; it starts with the first utterance',
      );
    });
  },
  entry: async (ctx: JobContext) => {
    const data = ctx.proc.userData as ProcessData;
    const config = loadConfig();
    const logger = createLogger(config.LOG_LEVEL, 'worker');
    const api = await WorkerApi.open(config);
    await runAgentSession(ctx, {
      config,
      workerConfig: loadWorkerConfig(),
      api,
      vad: data.vad,
      stt: data.stt,
      sttLanguage: data.sttLanguage,
      earlyStartPauseMs: data.earlyStartPauseMs,
      leaseThread: data.leaseThread,
      logger,
      closeJobResources: async () => {
        await data.stt.close();
        await api.close();
      },
    });
  },
});
