/**
 * The one-shot rows of `npm run bench` alone, beside the raw engine costs of the same
 * sentence: `node --import tsx bench/oneshot.ts [--quick]`. Service settings pass through
 * as in the full bench (for example `NATIVE_ENGINE_PERSISTENT=false`), and
 * `AWP_API_NODE_ARGS` are added to the api process's Node arguments (Node 20 refuses `--cpu-prof` in `NODE_OPTIONS`) (profiling, see
 * bench/PROFILING.md). Prints Markdown; writes nothing.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { EngineHelper } from '../src/tts/providers/native/helper/engine-helper.ts';
import { defaultEngineHelperPath, NATIVE_VOICES } from '../src/tts/providers/native/index.ts';
import { OneShotTarget } from './lib/oneshot.ts';
import { processTreeCpuSeconds } from './lib/stats.ts';
import { BENCH_ESPEAK_VOICE, SHORT_TEXT } from './lib/texts.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = { oneShot1: quick ? 30 : 200, oneShot32: quick ? 200 : 1600, raw: 200 };

/** CPU seconds of this process's reaped children (cutime + cstime, 10 ms resolution). */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function run(command: string, args: readonly string[], input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const parts: Buffer[] = [];
    child.stdout.on('data', (bytes: Buffer) => parts.push(bytes));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(parts)));
    child.stdin.end(input);
  });
}

/** espeak-ng's CPU per sentence with its start amortized: 20 sentences per process. */
async function rawEspeakMs(): Promise<number> {
  const before = childrenCpuSeconds();
  const perProcess = 20;
  const input = Buffer.from(`${SHORT_TEXT}\n`.repeat(perProcess));
  for (let i = 0; i < ROUNDS.raw / perProcess; i++) {
    // Without --stdin espeak-ng reads line by line: one synthesis per sentence.
    await run('espeak-ng', ['--stdout', '-b', '1', '-v', BENCH_ESPEAK_VOICE], input);
  }
  return ((childrenCpuSeconds() - before) * 1000) / ROUNDS.raw;
}

/** espeak-ng's CPU per sentence when a process is started for each one. */
async function rawEspeakSpawnMs(): Promise<number> {
  const before = childrenCpuSeconds();
  const input = Buffer.from(SHORT_TEXT);
  for (let i = 0; i < ROUNDS.raw; i++) {
    await run('espeak-ng', ['--stdout', '--stdin', '-b', '1', '-v', BENCH_ESPEAK_VOICE], input);
  }
  return ((childrenCpuSeconds() - before) * 1000) / ROUNDS.raw;
}

/** The long-lived engine's CPU per sentence (its start amortized over all of them). */
async function rawHelperMs(): Promise<number | undefined> {
  const binary = defaultEngineHelperPath();
  if (binary === undefined) return undefined;
  const helper = new EngineHelper(binary);
  const utterance = { voice: BENCH_ESPEAK_VOICE, wordsPerMinute: 175, pitch: 50, text: SHORT_TEXT };
  const speak = async () => {
    for await (const _ of helper.synthesize(utterance, new AbortController().signal));
  };
  await speak();
  const pid = helper.pid as number;
  // The engine's own time plus its reaped per-utterance forks.
  const before = processTreeCpuSeconds(pid);
  for (let i = 0; i < ROUNDS.raw; i++) await speak();
  const used = processTreeCpuSeconds(pid) - before;
  helper.kill();
  await helper.exited;
  return (used * 1000) / ROUNDS.raw;
}

const voice = NATIVE_VOICES.find((entry) => entry.providerVoiceId === BENCH_ESPEAK_VOICE);
if (!voice) throw new Error(`no catalog voice uses ${BENCH_ESPEAK_VOICE}`);
const raw = {
  espeak: await rawEspeakMs(),
  spawn: await rawEspeakSpawnMs(),
  helper: await rawHelperMs(),
};
const target = new OneShotTarget();
await target.start();
try {
  const rows = [
    await target.measure(voice.id, SHORT_TEXT, 1, ROUNDS.oneShot1),
    await target.measure(voice.id, SHORT_TEXT, 32, ROUNDS.oneShot32),
  ];
  const fmt = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(2));
  const lines = [
    `Raw CPU per sentence: espeak-ng ${fmt(raw.espeak)} ms (start amortized over 20), ` +
      `espeak-ng started per sentence ${fmt(raw.spawn)} ms, awp-espeak-engine ${fmt(raw.helper)} ms.`,
    '',
    '| clients | requests | latency p50 ms | latency p95 ms | requests / s | api CPU ms / request |',
    '| ------: | -------: | -------------: | -------------: | -----------: | -------------------: |',
    ...rows.map(
      (r) =>
        `| ${r.concurrency} | ${r.requests} | ${r.latencyMs.p50.toFixed(1)} | ` +
        `${r.latencyMs.p95.toFixed(1)} | ${Math.round(r.requestsPerS)} | ` +
        `${r.serverCpuMsPerRequest.toFixed(2)} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await target.stop();
}
