/**
 * The fleet under a worker crash and at its load threshold: `npm run bench -- fleet`
 * (alone: `node --import tsx bench/fleet.ts [--kills N]`, with TEST_REDIS_URL and
 * TEST_POSTGRES_URL set as scripts/bench.sh sets them).
 *
 * On the whole fleet of test/helpers/fleet.ts (two LiveKit nodes, Redis, PostgreSQL,
 * SeaweedFS, two api processes, a jobs process, two workers of two slots):
 * - Crash gap: a user (@livekit/rtc-node) asks for a long answer; while the agent speaks,
 *   the worker running the session is killed with SIGKILL (its process group, job
 *   processes included). The api's hand-over sweep (AGENT_SESSION_HANDOVER_AFTER_MS, 3 s)
 *   dispatches the session again and the other worker resumes it. Measured at the user:
 *   the last loud agent frame before the kill to the first after it. The killed worker is
 *   started again before the next kill.
 * - Sessions per worker at the load threshold: the two workers are replaced by one with
 *   WORKER_LOAD_THRESHOLD=0.8 (CPU counts) and a high slot cap; sessions are started one at
 *   a time, each user asking for an answer, until a start answers `provider_unavailable`.
 * - Worker CPU per conversing session: the CPU of one worker's process tree while four
 *   sessions converse, and the sessions that fit under the threshold on an idle machine.
 *
 * Writes bench/results/fleet.json and the section between `<!-- fleet:start -->` and
 * `<!-- fleet:end -->` of bench/README.md.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { dispose } from '@livekit/rtc-node';
import { apiClient, NATIVE_VOICE } from '../test/helpers/agents.ts';
import { type Fleet, startFleet } from '../test/helpers/fleet.ts';
import { RoomClient } from '../test/helpers/room-client.ts';
import '../test/helpers/rtc-log.ts';
import { waitFor } from '../test/helpers/wait.ts';
import { freePort, startWorker, type WorkerProcess } from '../test/helpers/worker.ts';
import { processTreeCpuSeconds, quantile, round } from './lib/stats.ts';

const killsFlag = process.argv.indexOf('--kills');
const KILLS = killsFlag >= 0 ? Number(process.argv[killsFlag + 1]) : 5;
const LOAD_THRESHOLD = 0.8;
const SESSION_CAP = 16;
const WORKER_WAIT_MS = 6000;
/** Conversing sessions on one worker while its CPU is measured, and for how long. */
const CPU_SESSIONS = 4;
const CPU_WINDOW_MS = 20_000;
/** Each user of the CPU window asks this often (the answer is four words). */
const ASK_EVERY_MS = 4000;
const GREETING = 'Hello Grace, I am Ada.';
const RESUMED = 'As I was saying, the story goes on.';
const STORY = Array.from({ length: 12 }, (_, i) => ` Sentence number ${i + 1} of a long story.`);

/** Starts an Agent session through api `i` and joins its user through node 1. */
async function openSession(fleet: Fleet, agentId: string, i: number) {
  const minted = await fleet.api(i)('POST', `/v1/agents/${agentId}/session-tokens`, {});
  const started = await apiClient(fleet.apis[i]?.url as string, minted.body.token)(
    'POST',
    `/v1/agents/${agentId}/sessions`,
    { sessionContext: { userName: 'Grace' } },
  );
  if (started.status !== 201) return { status: started.status, body: started.body };
  const user = await RoomClient.join(started.body.livekit.url, started.body.livekit.token);
  await user.waitUntil(
    () => user.transcripts().find((t) => t.text === GREETING),
    45_000,
    'the greeting',
  );
  return { status: 201, sessionId: started.body.session_id as string, user };
}

/**
 * Resolves once `sessionId` ended. A phase waits for its sessions to end after their users
 * left: a session whose job is lost before it noticed its user leaving is handed over to
 * its empty room and would take a slot of the next phase's worker.
 */
async function ended(fleet: Fleet, sessionId: string): Promise<void> {
  await waitFor(
    async () =>
      (await fleet.api(0)('GET', `/v1/agent-sessions/${sessionId}`)).body.state !== 'active',
    { what: `session ${sessionId} to end`, timeoutMs: 60_000 },
  );
}

/** One kill: the gap in ms the user heard, and which worker (index) resumed the session. */
async function crashOnce(fleet: Fleet, workers: WorkerProcess[], agentId: string, n: number) {
  const opened = await openSession(fleet, agentId, n % 2);
  if (!opened.user) throw new Error(`start answered ${opened.status}`);
  const { user, sessionId } = opened;
  try {
    fleet.llm.script({ text: STORY, deltaDelayMs: 20 });
    fleet.llm.script({ text: ['As', ' I', ' was', ' saying,', ' the', ' story', ' goes', ' on.'] });
    const askedAt = performance.now();
    await user.sendText('Tell me a long story.');
    await user.waitUntil(() => user.loudFramesSince(askedAt) > 50, 30_000, 'story audio');
    const holder = workers.findIndex((w) =>
      w.logs().some((l) => l.msg === 'session job started' && l.session_id === sessionId),
    );
    const victim = workers[holder];
    if (!victim) throw new Error('no worker logged the session job');
    const killedAt = performance.now();
    await victim.kill();
    const lastBefore = user.lastAgentSpeechAt(killedAt);
    await user.waitUntil(
      () => user.transcripts().find((t) => t.text === RESUMED),
      45_000,
      'the resumed answer',
    );
    const firstAfter = await user.agentHeardAgainAfter(killedAt);
    const gapMs = Math.round(firstAfter - lastBefore);
    process.stderr.write(`[fleet] kill ${n + 1}: gap ${gapMs} ms\n`);
    // The killed worker comes back (as an orchestrator restarts it) before the next kill.
    workers[holder] = await startWorker({
      ...(fleet.workerEnvs[holder] as Record<string, string>),
      WORKER_HTTP_PORT: String(await freePort()),
    });
    return gapMs;
  } finally {
    await user.leave();
    await ended(fleet, sessionId);
  }
}

/** Sessions one worker took before a start answered provider_unavailable. */
async function sessionsAtThreshold(fleet: Fleet, agentId: string) {
  const worker = await startWorker({
    ...(fleet.workerEnvs[0] as Record<string, string>),
    WORKER_HTTP_PORT: String(await freePort()),
    WORKER_MAX_SESSIONS: String(SESSION_CAP),
    WORKER_LOAD_THRESHOLD: String(LOAD_THRESHOLD),
  });
  const users: RoomClient[] = [];
  const sessionIds: string[] = [];
  let refusal = 'none: the slot cap was reached first';
  try {
    while (users.length < SESSION_CAP) {
      const opened = await openSession(fleet, agentId, users.length % 2);
      if (!opened.user) {
        refusal = `${opened.status} ${(opened.body as { code?: string }).code ?? ''}`.trim();
        break;
      }
      users.push(opened.user);
      sessionIds.push(opened.sessionId);
      // Each user asks once, so every session has spoken an answer when the next starts.
      const askedAt = performance.now();
      await opened.user.sendText('Tell me something.');
      await opened.user.waitUntil(
        () => opened.user.loudFramesSince(askedAt) > 20,
        30_000,
        'an answer',
      );
      process.stderr.write(`[fleet] ${users.length} sessions on one worker\n`);
    }
    return { sessions: users.length, refusal, loadAverage: round(loadavg()[0] ?? 0, 2) };
  } finally {
    for (const user of users) await user.leave().catch(() => {});
    for (const id of sessionIds) await ended(fleet, id);
    await worker.kill();
  }
}

/**
 * The CPU of one worker (its process tree: the worker and its job processes) per conversing
 * session: CPU_SESSIONS sessions whose users each ask every ASK_EVERY_MS, over CPU_WINDOW_MS.
 * The machine's other load does not count here, so the sessions that fit under the
 * threshold on an otherwise idle machine follow from it.
 */
async function cpuPerSession(fleet: Fleet, agentId: string) {
  const worker = await startWorker({
    ...(fleet.workerEnvs[0] as Record<string, string>),
    WORKER_HTTP_PORT: String(await freePort()),
    WORKER_MAX_SESSIONS: String(CPU_SESSIONS),
  });
  const users: RoomClient[] = [];
  try {
    for (let i = 0; i < CPU_SESSIONS; i++) {
      // On this busy machine a cold job process may miss the start's wait for a worker:
      // the start answers the retryable provider_unavailable, and is retried as a client would.
      let opened = await openSession(fleet, agentId, i % 2);
      for (let retry = 0; retry < 3 && !opened.user; retry++) {
        opened = await openSession(fleet, agentId, i % 2);
      }
      // A start still refused leaves the measure to the sessions that run (reported).
      if (!opened.user) break;
      users.push(opened.user);
    }
    if (users.length === 0) throw new Error('no session started on the CPU phase’s worker');
    const pid = worker.child.pid as number;
    const cpuBefore = processTreeCpuSeconds(pid);
    const from = performance.now();
    let asked = 0;
    while (performance.now() - from < CPU_WINDOW_MS) {
      for (const user of users) await user.sendText(`Question ${++asked}.`);
      await new Promise((resolve) => setTimeout(resolve, ASK_EVERY_MS));
    }
    const seconds = (performance.now() - from) / 1000;
    const cores = (processTreeCpuSeconds(pid) - cpuBefore) / seconds / users.length;
    process.stderr.write(`[fleet] ${round(cores, 3)} cores per conversing session\n`);
    return { coresPerSession: round(cores, 3), questions: asked, sessions: users.length };
  } finally {
    for (const user of users) await user.leave().catch(() => {});
    await worker.kill();
  }
}

async function createAgent(fleet: Fleet): Promise<string> {
  const created = await fleet.api(0)('POST', '/v1/agents', {
    slug: 'bench-fleet-ada',
    voice_id: NATIVE_VOICE,
    llm_provider: 'openai',
    llm_model: 'gpt-4.1-mini',
    character_card: {
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: {
        name: 'Ada',
        system_prompt: 'You are {{char}}. Be brief.',
        first_mes: 'Hello {{user}}, I am {{char}}.',
      },
    },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const agentId = created.body.id as string;
  await fleet.api(1)('POST', `/v1/agents/${agentId}/publish`);
  return agentId;
}

async function main(): Promise<void> {
  const loadAtStart = round(loadavg()[0] ?? 0, 2);
  const fleet = await startFleet({
    agentName: 'awp-bench-fleet',
    env: {
      AGENT_SESSION_HANDOVER_AFTER_MS: '3000',
      AGENT_SESSION_WORKER_WAIT_MS: String(WORKER_WAIT_MS),
    },
    workerEnv: { WORKER_MAX_SESSIONS: '2' },
  });
  const workers = [...fleet.workers];
  const gaps: number[] = [];
  let threshold: Awaited<ReturnType<typeof sessionsAtThreshold>>;
  try {
    const agentId = await createAgent(fleet);
    for (let n = 0; n < KILLS; n++) gaps.push(await crashOnce(fleet, workers, agentId, n));
    const loadAfterKills = round(loadavg()[0] ?? 0, 2);
    for (const worker of workers) await worker.kill();
    threshold = await sessionsAtThreshold(fleet, agentId);
    const cpu = await cpuPerSession(fleet, agentId);
    writeResults({ gaps, threshold, cpu, loadAtStart, loadAfterKills });
  } finally {
    for (const worker of workers) await worker.kill().catch(() => {});
    await fleet.close();
    await dispose();
  }
}

/** A Markdown table of measures, laid out as the formatter (biome) lays it out. */
function table(rows: [string, number][]): string[] {
  const width = Math.max('measure'.length, ...rows.map(([name]) => name.length));
  const valueWidth = Math.max('value'.length, ...rows.map(([, v]) => String(v).length));
  return [
    `| ${'measure'.padEnd(width)} | ${'value'.padStart(valueWidth)} |`,
    `| ${'-'.repeat(width)} | ${'-'.repeat(valueWidth - 1)}: |`,
    ...rows.map(([name, v]) => `| ${name.padEnd(width)} | ${String(v).padStart(valueWidth)} |`),
  ];
}

function writeResults(input: {
  gaps: number[];
  threshold: { sessions: number; refusal: string; loadAverage: number };
  cpu: { coresPerSession: number; questions: number; sessions: number };
  loadAtStart: number;
  loadAfterKills: number;
}): void {
  const sorted = [...input.gaps].sort((a, b) => a - b);
  const results = {
    date: new Date().toISOString(),
    command: `npm run bench -- fleet${killsFlag >= 0 ? ` --kills ${KILLS}` : ''}`,
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      load_average_1m_at_start: input.loadAtStart,
      load_average_1m_after_kills: input.loadAfterKills,
      load_average_1m_at_threshold: input.threshold.loadAverage,
    },
    crash_gap_ms: {
      kills: sorted.length,
      p50: round(quantile(sorted, 0.5)),
      max: sorted.at(-1) ?? 0,
      each: input.gaps,
    },
    sessions_per_worker_at_threshold: {
      load_threshold: LOAD_THRESHOLD,
      slot_cap: SESSION_CAP,
      sessions: input.threshold.sessions,
      next_start_answered: input.threshold.refusal,
    },
    cpu_per_conversing_session: {
      sessions: input.cpu.sessions,
      window_ms: CPU_WINDOW_MS,
      ask_every_ms: ASK_EVERY_MS,
      questions: input.cpu.questions,
      cores: input.cpu.coresPerSession,
      sessions_under_threshold_on_an_idle_machine: Math.floor(
        (LOAD_THRESHOLD * cpus().length) / input.cpu.coresPerSession,
      ),
    },
  };
  const dir = path.join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'fleet.json'), `${JSON.stringify(results, null, 2)}\n`);
  const m = results.machine;
  const section = [
    `Run on ${results.date.slice(0, 10)} with \`${results.command}\` on ${m.cpus} × ${m.cpu_model}, Node ${m.node}; 1-minute load average ${m.load_average_1m_at_start} at the start, ${m.load_average_1m_after_kills} after the kills, ${m.load_average_1m_at_threshold} at the threshold. The machine is shared with other sessions' builds and tests: the figures are this machine's on that day, not a capacity plan.`,
    '',
    ...table([
      [
        `crash gap, SIGKILL of a whole worker: p50 ms (${results.crash_gap_ms.kills} kills)`,
        results.crash_gap_ms.p50,
      ],
      ['crash gap, SIGKILL of a whole worker: max ms', results.crash_gap_ms.max],
      [
        `sessions per worker at WORKER_LOAD_THRESHOLD=${LOAD_THRESHOLD}, measured`,
        results.sessions_per_worker_at_threshold.sessions,
      ],
      [
        `worker CPU per conversing session, cores (${results.cpu_per_conversing_session.sessions} sessions)`,
        results.cpu_per_conversing_session.cores,
      ],
      [
        `sessions under the threshold on an idle machine (${LOAD_THRESHOLD} × ${m.cpus} cores / CPU per session)`,
        results.cpu_per_conversing_session.sessions_under_threshold_on_an_idle_machine,
      ],
    ]),
    '',
    `Each kill's gap in ms: ${input.gaps.join(', ')}. The next start after the last session answered: ${input.threshold.refusal}.`,
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  const readmePath = path.join(import.meta.dirname, 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const start = '<!-- fleet:start -->';
  const end = '<!-- fleet:end -->';
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return;
  writeFileSync(
    readmePath,
    `${readme.slice(0, from + start.length)}\n${section}\n${readme.slice(to)}`,
  );
}

await main();
