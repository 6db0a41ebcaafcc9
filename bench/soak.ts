/**
 * The soak test (`npm run soak`): the compiled api on loopback under mixed one-shot and
 * streaming load with random disconnects for SOAK_MINUTES (default 10), with a Redis
 * restart at a third of the time and killed engines (a long-lived engine and an espeak-ng
 * process when running, then the engine launcher) at two thirds. It passes when, at the end:
 *
 * - the api process never exited (zero crashed processes) and stops cleanly on SIGTERM;
 * - no ledger row is left open;
 * - grants = balance + charges, exactly (open reservations being zero);
 * - every succeeded request's audio is stored (waiting up to 4 minutes for the spool);
 * - the api's peak RSS stayed under SOAK_RSS_LIMIT_MB (default 700).
 *
 * Figures go to stdout and bench/results/soak.json; bench/README.md quotes a run.
 * PostgreSQL is used when TEST_POSTGRES_URL is set (SOAK_DIALECT=sqlite forces SQLite).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect as netConnect } from 'node:net';
import path from 'node:path';
import WebSocket from 'ws';
import { NATIVE_VOICES } from '../src/tts/providers/native/index.ts';
import { creditAccount, grantedMillicredits } from '../test/helpers/credit.ts';
import { createTestDatabase } from '../test/helpers/database.ts';
import { openTestDatabase, seedWorkspace } from '../test/helpers/seed.ts';
import { ROOT, startServer } from '../test/helpers/server.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 6);
const RSS_LIMIT_MB = Number(process.env.SOAK_RSS_LIMIT_MB ?? 700);
const DIALECT = process.env.SOAK_DIALECT ?? (process.env.TEST_POSTGRES_URL ? 'postgres' : 'sqlite');
const VOICE = NATIVE_VOICES[0]!.id;
const FORMATS = ['pcm_24000', 'opus_48000_64', 'aac_44100_128', 'pcm_44100'];
const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'A soak test keeps the service busy for a long time.',
  'Numbers like 42 and 1999 are read out in words.',
  'Streams may end at any moment, and credit must still add up.',
];

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startRedis(port: number): ChildProcess {
  return spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
}

async function redisUp(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = netConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error('redis-server did not start');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Descendant pids of `pid` whose command is `comm` (or whose cmdline contains it). */
function descendants(pid: number): { pid: number; comm: string; cmdline: string }[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
        return [{ pid: Number(name), ppid, comm, cmdline }];
      } catch {
        return [];
      }
    });
  const out: { pid: number; comm: string; cmdline: string }[] = [];
  const walk = (parent: number) => {
    for (const p of all.filter((q) => q.ppid === parent)) {
      out.push(p);
      walk(p.pid);
    }
  };
  walk(pid);
  return out;
}

interface Tally {
  oneShot: Record<string, number>;
  streams: Record<string, number>;
  /** One example detail per error code, to tell expected refusals from defects. */
  details: Record<string, string>;
}

async function oneShot(base: string, key: string, tally: Tally): Promise<void> {
  const text = Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () =>
    pick(SENTENCES),
  ).join(' ');
  const controller = new AbortController();
  // A fifth of one-shot clients give up early.
  const giveUp = Math.random() < 0.2;
  const timer = giveUp ? setTimeout(() => controller.abort(), Math.random() * 300) : undefined;
  try {
    const response = await fetch(`${base}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ voice_id: VOICE, text, output_format: pick(FORMATS) }),
      signal: controller.signal,
    });
    const body = Buffer.from(await response.arrayBuffer());
    const label = String(response.status);
    if (response.status !== 200) {
      const error = JSON.parse(body.toString()) as { code: string; detail: string };
      tally.details[`${label} ${error.code}`] ??= error.detail;
    }
    tally.oneShot[label] = (tally.oneShot[label] ?? 0) + 1;
  } catch {
    tally.oneShot.disconnected = (tally.oneShot.disconnected ?? 0) + 1;
  } finally {
    clearTimeout(timer);
  }
}

async function stream(base: string, key: string, tally: Tally): Promise<void> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/v1/tts/stream`, {
    headers: { authorization: `Bearer ${key}` },
  });
  // Where this client disconnects: never, or after that many events of its own.
  const plan = ['start', 'text', 'text', 'flush', 'text', 'flush', 'stop'];
  const cutAt = Math.random() < 0.4 ? Math.floor(Math.random() * plan.length) : -1;
  let outcome = 'closed';
  const closed = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const event = JSON.parse(String(data)) as { event: string; code?: string; detail?: string };
      if (event.event === 'finish') outcome = 'finish';
      if (event.event === 'error') {
        outcome = `error:${event.code}`;
        tally.details[`stream ${event.code}`] ??= event.detail ?? '';
      }
    });
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
  await new Promise<void>((resolve) => {
    socket.once('open', () => resolve());
    socket.once('error', () => resolve());
    socket.once('unexpected-response', () => resolve());
  });
  if (socket.readyState !== WebSocket.OPEN) {
    tally.streams.refused = (tally.streams.refused ?? 0) + 1;
    return;
  }
  for (const [index, step] of plan.entries()) {
    if (index === cutAt) {
      socket.terminate();
      tally.streams.cut = (tally.streams.cut ?? 0) + 1;
      await closed;
      return;
    }
    if (socket.readyState !== WebSocket.OPEN) break;
    if (step === 'start') {
      socket.send(
        JSON.stringify({
          event: 'start',
          request: { voice_id: VOICE, output_format: pick(FORMATS) },
        }),
      );
    } else if (step === 'text') {
      socket.send(JSON.stringify({ event: 'text', text: `${pick(SENTENCES)} ` }));
    } else {
      socket.send(JSON.stringify({ event: step }));
    }
    await sleep(Math.random() * 50);
  }
  await closed;
  tally.streams[outcome] = (tally.streams[outcome] ?? 0) + 1;
}

async function main(): Promise<void> {
  const redisPort = await freePort();
  let redis = startRedis(redisPort);
  await redisUp(redisPort);
  process.env.TEST_REDIS_URL = `redis://127.0.0.1:${redisPort}`;

  const database = await createTestDatabase(DIALECT as 'sqlite' | 'postgres');
  const handle = await openTestDatabase(database);
  const ws = await seedWorkspace(handle, { credits: 50_000_000 });
  const server = await startServer({
    database,
    env: {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      TTS_RATE_LIMIT_PER_MINUTE: '0',
      TTS_WORKSPACE_RATE_LIMIT_PER_MINUTE: '0',
      STREAM_MAX_CONCURRENT_PER_WORKSPACE: '0',
      AUDIO_PERSISTENCE: process.env.SOAK_AUDIO_PERSISTENCE ?? 'true',
      LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'info',
      NATIVE_ENGINE_LAUNCHER: process.env.SOAK_ENGINE_LAUNCHER ?? 'true',
      NATIVE_ENGINE_PERSISTENT: process.env.SOAK_ENGINE_PERSISTENT ?? 'true',
    },
  });
  const pid = server.process.pid as number;
  let crashed = false;
  server.process.once('exit', () => {
    crashed = !stopping;
  });
  let stopping = false;

  const durationMs = MINUTES * 60_000;
  const startedAt = Date.now();
  const deadline = startedAt + durationMs;
  const tally: Tally = { oneShot: {}, streams: {}, details: {} };
  const faults: string[] = [];
  let peakRssMb = rssMb(pid);
  const rssSamples: number[] = [];

  const sampler = setInterval(() => {
    if (crashed) return;
    const rss = rssMb(pid);
    peakRssMb = Math.max(peakRssMb, rss);
    rssSamples.push(Math.round(rss));
  }, 5_000);

  const faultsDone = (async () => {
    await sleep(durationMs / 3);
    faults.push(`${Math.round((Date.now() - startedAt) / 1000)} s: Redis stopped`);
    redis.kill('SIGKILL');
    await sleep(10_000);
    redis = startRedis(redisPort);
    await redisUp(redisPort);
    faults.push(`${Math.round((Date.now() - startedAt) / 1000)} s: Redis back`);
    await sleep(durationMs / 3 - 10_000);
    // One engine of each kind running: a long-lived engine (awp-espeak-engine, the default)
    // and an espeak-ng process (the phonemizer of neural voices, or every request without
    // the long-lived engine).
    for (const kind of ['awp-espeak-eng', 'espeak-ng']) {
      const engine = descendants(pid).find((p) => p.comm.startsWith(kind));
      if (engine && process.env.SOAK_KILL_ENGINE !== 'false') {
        process.kill(engine.pid, 'SIGKILL');
        faults.push(
          `${Math.round((Date.now() - startedAt) / 1000)} s: ${engine.comm} ${engine.pid} killed`,
        );
      }
    }
    await sleep(5_000);
    const launcher = descendants(pid).find((p) => p.cmdline.includes('launcher-main'));
    if (launcher && process.env.SOAK_KILL_LAUNCHER !== 'false') {
      process.kill(launcher.pid, 'SIGKILL');
      faults.push(
        `${Math.round((Date.now() - startedAt) / 1000)} s: engine launcher ${launcher.pid} killed`,
      );
    }
  })();

  const clients = Array.from({ length: CLIENTS }, async () => {
    while (Date.now() < deadline && !crashed) {
      if (Math.random() < 0.5) await oneShot(server.url, ws.productionKey, tally);
      else await stream(server.url, ws.productionKey, tally);
    }
  });
  await Promise.all(clients);
  await faultsDone;
  clearInterval(sampler);

  // Every row closes once its stream notices the end; then the books must balance.
  let account = await creditAccount(handle, ws.workspaceId);
  for (let i = 0; i < 300 && account.openRows > 0; i++) {
    await sleep(200);
    account = await creditAccount(handle, ws.workspaceId);
  }
  const granted = await grantedMillicredits(handle, ws.workspaceId);
  const difference = granted - account.balance - account.charged - account.open;
  // Every succeeded request's audio is stored in the end, including what waited in the
  // spool while Redis was down (the sweeper queues files two minutes old, every minute).
  let audio = await persistedAudio(handle, ws.workspaceId);
  for (let i = 0; i < 240 && audio.persisted < audio.succeeded; i++) {
    await sleep(1000);
    audio = await persistedAudio(handle, ws.workspaceId);
  }

  stopping = true;
  // A hung shutdown is killed and reported by stop(); here it is one of the failures.
  const exitCode = crashed
    ? null
    : await server.stop(30_000).catch((error: unknown) => {
        process.stderr.write(`${(error as Error).message.split('\n')[0]}\n`);
        return null;
      });
  const serverTail = server
    .output()
    .split('\n')
    .filter((line) => !line.includes('"msg":"request"'))
    .slice(-15)
    .join('\n');
  redis.kill('SIGTERM');
  await handle.close();
  await database.drop();

  const result = {
    minutes: MINUTES,
    clients: CLIENTS,
    dialect: DIALECT,
    requests: tally,
    faults,
    crashed,
    exitCode,
    openRows: account.openRows,
    grantedMillicredits: granted,
    balanceMillicredits: account.balance,
    chargedMillicredits: account.charged,
    openReservedMillicredits: account.open,
    creditDifference: difference,
    succeededRequests: audio.succeeded,
    audioPersisted: audio.persisted,
    peakRssMb: Math.round(peakRssMb),
    rssLimitMb: RSS_LIMIT_MB,
    rssSamplesMb: rssSamples,
  };
  writeFileSync(path.join(ROOT, 'bench/results/soak.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify({ ...result, rssSamplesMb: undefined }, null, 2)}\n`);
  const failures = [
    crashed && 'the api process crashed',
    exitCode !== 0 && !crashed && `the api exited with ${exitCode} on SIGTERM`,
    account.openRows > 0 && `${account.openRows} ledger rows left open`,
    difference !== 0 && `credit off by ${difference} millicredits`,
    audio.persisted < audio.succeeded &&
      `${audio.succeeded - audio.persisted} succeeded requests without stored audio`,
    peakRssMb > RSS_LIMIT_MB && `peak RSS ${Math.round(peakRssMb)} MB over ${RSS_LIMIT_MB} MB`,
  ].filter(Boolean);
  if (failures.length > 0) {
    process.stderr.write(`api output, last lines:\n${serverTail}\n`);
    process.stderr.write(`soak FAILED: ${failures.join('; ')}\n`);
    process.exit(1);
  }
  process.stderr.write('soak passed\n');
}

/** Succeeded requests of the workspace, and how many of them have their audio stored. */
async function persistedAudio(
  handle: Awaited<ReturnType<typeof openTestDatabase>>,
  workspaceId: string,
): Promise<{ succeeded: number; persisted: number }> {
  const rows = await handle.db
    .selectFrom('synthesis_requests')
    .select(['audio_persisted'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'succeeded')
    .execute();
  return {
    succeeded: rows.length,
    persisted: rows.filter((row) => Number(row.audio_persisted) === 1).length,
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed to run: ${String(error)}\n`);
  process.exit(1);
});
