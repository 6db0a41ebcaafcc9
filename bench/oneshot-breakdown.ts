/**
 * Where a one-shot request's CPU goes inside the api's process tree:
 * `node --import tsx bench/oneshot-breakdown.ts [requests] [clients]` (default 1,600 at 32).
 * Runs the one-shot load of bench/oneshot.ts and splits the tree's CPU (user and system,
 * from /proc) into the api's main thread, its other threads (libuv's file and DNS threads,
 * V8's garbage-collection helpers, worker threads) and its child processes (the speech
 * engine with its per-voice templates and their reaped utterance processes), in ms per
 * request. Service settings pass through as in bench/oneshot.ts (e.g. `AUDIO_PERSISTENCE`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { NATIVE_VOICES } from '../src/tts/providers/native/index.ts';
import { OneShotTarget } from './lib/oneshot.ts';
import { BENCH_ESPEAK_VOICE, SHORT_TEXT } from './lib/texts.ts';

const TICKS_PER_MS = 0.1;

/** The command name and the fields after it of a /proc stat file (field 3 at index 1). */
function readStat(path: string): string[] | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ...fields];
  } catch {
    return undefined; // exited while we looked
  }
}

/** CPU ticks of the api's tree by where they were spent. */
function snapshot(root: number): Map<string, number> {
  const processes = new Map<number, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (stat) processes.set(Number(entry), stat);
  }
  const ticks = new Map<string, number>();
  const add = (where: string, user: string | undefined, system: string | undefined) => {
    ticks.set(`${where}, user`, (ticks.get(`${where}, user`) ?? 0) + Number(user));
    ticks.set(`${where}, system`, (ticks.get(`${where}, system`) ?? 0) + Number(system));
  };
  // utime and stime are fields 14 and 15, cutime and cstime 16 and 17.
  for (const task of readdirSync(`/proc/${root}/task`)) {
    const stat = readStat(`/proc/${root}/task/${task}/stat`);
    if (stat)
      add(Number(task) === root ? 'api main thread' : 'api other threads', stat[12], stat[13]);
  }
  const pending = [...processes].filter(([, stat]) => Number(stat[2]) === root).map(([pid]) => pid);
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    const stat = processes.get(pid) as string[];
    add(`child ${stat[0]}`, stat[12], stat[13]);
    add(`child ${stat[0]}`, stat[14], stat[15]);
    for (const [child, childStat] of processes)
      if (Number(childStat[2]) === pid) pending.push(child);
  }
  return ticks;
}

const requests = Number(process.argv[2] ?? 1600);
const clients = Number(process.argv[3] ?? 32);
const voice = NATIVE_VOICES.find((entry) => entry.providerVoiceId === BENCH_ESPEAK_VOICE);
if (!voice) throw new Error(`no catalog voice uses ${BENCH_ESPEAK_VOICE}`);
const target = new OneShotTarget();
await target.start();
try {
  await target.measure(voice.id, SHORT_TEXT, clients, clients * 4);
  const before = snapshot(target.pid);
  const result = await target.measure(voice.id, SHORT_TEXT, clients, requests);
  const after = snapshot(target.pid);
  console.log(`| where | CPU ms / request |\n| ----- | ---------------: |`);
  let total = 0;
  for (const [where, ticks] of after) {
    const ms = (ticks - (before.get(where) ?? 0)) / TICKS_PER_MS / requests;
    total += ms;
    if (ms >= 0.005) console.log(`| ${where} | ${ms.toFixed(2)} |`);
  }
  console.log(`| total | ${total.toFixed(2)} |`);
  console.log(
    `\n${requests} requests at ${clients} clients, ${result.requestsPerS.toFixed(0)} per second.`,
  );
} finally {
  await target.stop();
}
