// `npm run worker`: one LiveKit agent worker process. It registers with LiveKit under
// AGENT_NAME (explicit dispatch only) and forks a job process per Agent session.
import { agentIdentity } from '@awp/protocol';
import { AgentServer, initializeLogger, ServerOptions } from '@livekit/agents';
import { siblingEntry } from '../media/runtime-entry.ts';
import { ConfigError, loadConfig } from '../src/worker-boundary/index.ts';
import { loadWorkerConfig } from './config.ts';
import { CpuSampler, JobAdmission, LIVEKIT_TARGET_LOAD, workerLoad } from './load.ts';

/** Longest an accepted job counts as starting without LiveKit assigning it. */
const ASSIGNMENT_WAIT_MS = 15_000;

/** The job entry the framework forks, compiled or source like this file. */
export function agentEntryFile(): string {
  return siblingEntry(import.meta.url, 'agent').file;
}

/**
 * Draining: LiveKit gives this worker no new jobs; the running conversations get the grace
 * to finish, and those still running then are closed, which hands each to a new job
 * elsewhere (worker/agent-session/session.ts).
 */
function drainOnSignal(server: AgentServer, graceMs: number): (signal: string) => Promise<void> {
  let stopping = false;
  return async (signal) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(
      `${JSON.stringify({ msg: 'worker stopping', signal, grace_ms: graceMs })}\n`,
    );
    await server.drain(graceMs).catch(() => {});
    process.stdout.write(
      `${JSON.stringify({ msg: 'worker drained', jobs_left: server.activeJobs.length })}\n`,
    );
    await server.close();
    process.exit(0);
  };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const worker = loadWorkerConfig();
  initializeLogger({
    pretty: false,
    level: config.LOG_LEVEL === 'silent' ? 'fatal' : config.LOG_LEVEL,
  });
  const cpu = new CpuSampler();
  const loadThreshold = worker.WORKER_LOAD_THRESHOLD ?? 1;
  const admission = new JobAdmission(worker.WORKER_MAX_SESSIONS);
  const server = new AgentServer(
    new ServerOptions({
      agent: agentEntryFile(),
      agentName: worker.AGENT_NAME,
      wsURL: worker.LIVEKIT_URL.replace(/^http/, 'ws'),
      apiKey: worker.LIVEKIT_API_KEY,
      apiSecret: worker.LIVEKIT_API_SECRET,
      production: true,
      host: '127.0.0.1',
      port: worker.WORKER_HTTP_PORT,
      numIdleProcesses: worker.WORKER_IDLE_PROCESSES,
      initializeProcessTimeout: worker.WORKER_INITIALIZE_TIMEOUT_MS,
      // CPU counts only when WORKER_LOAD_THRESHOLD is set: on a small shared machine the CPU
      // is busy during a single session's model start, and the worker would stop taking
      // sessions it could run.
      loadFunc: async (server) =>
        workerLoad({
          activeJobs: server.activeJobs.length,
          maxSessions: worker.WORKER_MAX_SESSIONS,
          cpu: worker.WORKER_LOAD_THRESHOLD === undefined ? 0 : cpu.sample(),
          threshold: loadThreshold,
        }),
      // The reported load is on LiveKit's scale: the worker is full at LiveKit's target load.
      loadThreshold: LIVEKIT_TARGET_LOAD,
      jobMemoryLimitMB: worker.WORKER_JOB_MEMORY_LIMIT_MB,
      jobMemoryWarnMB: Math.max(1, Math.floor(worker.WORKER_JOB_MEMORY_LIMIT_MB * 0.8)),
      // Each job gets the Agent identity of its session and generation (docs/agent-protocol.md).
      requestFunc: async (request) => {
        let sessionId = '';
        let epoch = 0;
        try {
          const metadata = JSON.parse(request.job.metadata || '{}') as {
            session_id?: string;
            resume_epoch?: number;
          };
          sessionId = metadata.session_id ?? '';
          epoch = Number.isSafeInteger(metadata.resume_epoch) ? Number(metadata.resume_epoch) : 0;
        } catch {
          // not one of ours
        }
        if (!sessionId) {
          await request.reject();
          return;
        }
        const started = admission.admit(server.activeJobs.length);
        if (!started) {
          process.stdout.write(
            `${JSON.stringify({ msg: 'job refused: every session slot is taken', session_id: sessionId })}\n`,
          );
          await request.reject();
          return;
        }
        // Accepting resolves once the job process runs the job or failed to; an assignment
        // LiveKit never sends must not hold the slot for good.
        const unassigned = setTimeout(started, ASSIGNMENT_WAIT_MS);
        await request.accept('Agent', agentIdentity(sessionId, epoch)).finally(() => {
          clearTimeout(unassigned);
          started();
        });
      },
    }),
  );
  const stop = drainOnSignal(server, worker.WORKER_DRAIN_GRACE_MS);
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  server.event.once('worker_registered', () => {
    process.stdout.write(
      `${JSON.stringify({
        msg: 'worker registered',
        agent_name: worker.AGENT_NAME,
        max_sessions: worker.WORKER_MAX_SESSIONS,
        load_threshold: loadThreshold,
      })}\n`,
    );
  });
  await server.run();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`worker failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
