// The job entry of the agent worker. The LiveKit agents framework forks one process per
// job (one live session) and imports this file by path in it: `prewarm` runs once per
// process (models), `entry` once per session.
import { defineAgent, type JobContext, type JobProcess, type VAD } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { createLogger } from '../src/observability/logger.ts';
import { loadWorkerConfig } from './config.ts';
import { runLiveSession } from './conversation/session.ts';
import { createSttProvider, loadSttConfig } from './stt/config.ts';
import type { SttProvider } from './stt/provider.ts';

interface ProcessData extends Record<string, unknown> {
  vad: VAD;
  stt: SttProvider;
}

export default defineAgent({
  prewarm: async (proc: JobProcess) => {
    const logger = createLogger(process.env.LOG_LEVEL ?? 'info', 'worker');
    // Silero's defaults, except a shorter silence before a turn ends (snappier replies).
    proc.userData.vad = await silero.VAD.load({ minSilenceDuration: 450 });
    proc.userData.stt = createSttProvider(loadSttConfig(), logger);
  },
  entry: async (ctx: JobContext) => {
    const data = ctx.proc.userData as ProcessData;
    const config = loadConfig();
    const logger = createLogger(config.LOG_LEVEL, 'worker');
    const db = await openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      maxConnections: 2,
    });
    ctx.addShutdownCallback(async () => {
      await data.stt.close();
      await db.close();
    });
    await runLiveSession(ctx, {
      config,
      workerConfig: loadWorkerConfig(),
      db,
      vad: data.vad,
      stt: data.stt,
      logger,
    });
  },
});
