// The whole fleet on loopback, as docker-compose.yml runs it across hosts: a two-node
// LiveKit cluster over a private Redis, PostgreSQL, an S3-compatible store (SeaweedFS),
// two api processes, a jobs process and agent workers, each worker registered with its own
// LiveKit node and speaking through its own api. Nothing shares a folder: host A is api 1
// with the jobs process (one DATA_DIR, its persistence spool), host B is api 2, which drains
// its own spool in process; stored audio goes to the bucket.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import { FakeOpenAiChat } from '../fakes/openai-chat.ts';
import { type ApiClient, apiClient } from './agents.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { type LivekitCluster, startLivekitCluster } from './livekit-cluster.ts';
import { type S3Server, startS3Server } from './s3-server.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from './seed.ts';
import { ROOT, type RunningServer, serviceEnv, startServer } from './server.ts';
import { waitFor } from './wait.ts';
import { freePort, startWorker, type WorkerProcess } from './worker.ts';

export interface FleetOptions {
  /** The name the workers register under. */
  agentName: string;
  /** Agent workers, alternating between the LiveKit nodes (default 2). */
  workers?: number;
  /** Environment of every process (api, jobs and workers). */
  env?: Record<string, string>;
  /** Environment of the workers only (WORKER_MAX_SESSIONS, WORKER_LOAD_THRESHOLD). */
  workerEnv?: Record<string, string>;
}

export interface JobsProcess {
  child: ChildProcess;
  output(): string;
}

export interface Fleet {
  database: TestDatabase;
  handle: DatabaseHandle;
  ws: SeededWorkspace;
  cluster: LivekitCluster;
  s3: S3Server;
  llm: FakeOpenAiChat;
  /** Api 1 (host A, with the jobs process) and api 2 (host B). */
  apis: RunningServer[];
  jobs: JobsProcess;
  workers: WorkerProcess[];
  /** The environment worker `i` was started with (to start another like it). */
  workerEnvs: Record<string, string>[];
  /** The production workspace key's client of api `i`. */
  api(i: number): ApiClient;
  /**
   * Starts one more worker like worker 0 (its own port, `env` on top: another LiveKit node,
   * say); it joins `workers` and `workerEnvs`, and the fleet stops it too.
   */
  startWorker(env?: Record<string, string>): Promise<WorkerProcess>;
  close(): Promise<void>;
}

/** Starts the jobs process of host A and waits until its job workers run. */
async function startJobs(env: Record<string, string>): Promise<JobsProcess> {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/src/jobs/main.js'], {
    cwd: ROOT,
    env: { ...env, LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  await waitFor(() => output.includes('job workers running') || child.exitCode !== null, {
    what: 'the jobs process',
    timeoutMs: 30_000,
  });
  if (child.exitCode !== null) throw new Error(`the jobs process exited:\n${output}`);
  return { child, output: () => output };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const database = await createTestDatabase('postgres');
    cleanups.push(() => database.drop());
    const handle = await openTestDatabase(database);
    cleanups.push(() => handle.close());
    const ws = await seedWorkspace(handle);
    const [cluster, s3, llm] = await Promise.all([
      startLivekitCluster(),
      startS3Server(),
      FakeOpenAiChat.start(),
    ]);
    cleanups.push(
      () => cluster.stop(),
      () => s3.stop(),
      () => llm.close(),
    );
    const [one, two] = cluster.nodes;
    if (!one || !two) throw new Error('the cluster has fewer than two nodes');
    const hostB = await mkdtemp(path.join(tmpdir(), 'awp-fleet-b-'));
    cleanups.push(() => rm(hostB, { recursive: true, force: true }));
    const shared = {
      LIVEKIT_URL: one.url,
      // Browsers get one URL: a load balancer over the nodes in production, node 1 here.
      LIVEKIT_PUBLIC_URL: one.url,
      LIVEKIT_API_KEY: cluster.apiKey,
      LIVEKIT_API_SECRET: cluster.apiSecret,
      AGENT_NAME: options.agentName,
      TOKEN_SIGNING_SECRET: `${options.agentName}-signing-secret-0123456789abcdef`,
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_API_KEY: llm.apiKey ?? '',
      LOCAL_LLM: 'false',
      // One Redis namespace for the whole fleet: queues, limits and revocations are shared.
      REDIS_PREFIX: `fleet-${randomBytes(4).toString('hex')}`,
      ...s3.env('fleet'),
      ...options.env,
    };
    const hostAEnv = { ...shared, RUN_JOBS_IN_PROCESS: 'false' };
    const apis = await Promise.all([
      startServer({ database, env: hostAEnv }),
      startServer({ database, env: { ...shared, DATA_DIR: hostB } }),
    ]);
    for (const api of apis) cleanups.push(() => api.stop());
    const jobs = await startJobs(serviceEnv(database, hostAEnv));
    cleanups.push(() => stopChild(jobs.child));

    const workerEnvs: Record<string, string>[] = [];
    for (let i = 0; i < (options.workers ?? 2); i++) {
      const api = apis[i % 2] as RunningServer;
      workerEnvs.push(
        serviceEnv(database, {
          ...shared,
          ...(i % 2 === 1 ? { DATA_DIR: hostB } : {}),
          LIVEKIT_URL: (i % 2 === 0 ? one : two).url,
          AWP_API_URL: api.url,
          AWP_API_DEV_URL: api.devUrl,
          WORKER_HTTP_PORT: String(await freePort()),
          WORKER_IDLE_PROCESSES: '1',
          STT_PROVIDER: 'openai',
          STT_OPENAI_BASE_URL: llm.baseUrl,
          ...options.workerEnv,
        }),
      );
    }
    const workers = await Promise.all(workerEnvs.map((env) => startWorker(env)));
    for (const worker of workers) cleanups.push(() => worker.kill());
    const another = async (env: Record<string, string> = {}) => {
      const workerEnv = {
        ...(workerEnvs[0] as Record<string, string>),
        WORKER_HTTP_PORT: String(await freePort()),
        ...env,
      };
      const worker = await startWorker(workerEnv);
      cleanups.push(() => worker.kill());
      workers.push(worker);
      workerEnvs.push(workerEnv);
      return worker;
    };
    return {
      database,
      handle,
      ws,
      cluster,
      s3,
      llm,
      apis,
      jobs,
      workers,
      workerEnvs,
      api: (i) => apiClient((apis[i] as RunningServer).url, ws.productionKey),
      startWorker: another,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
