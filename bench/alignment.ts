/**
 * The CPU cost of word alignment on the stream path: the same closed-loop streams with and
 * without `alignment: "word"`, side by side in one run.
 *
 *   npm run bench -- alignment [--quick]        (or, with a Redis and the compiled service:
 *   node --import tsx bench/alignment.ts [--quick])
 *
 * Each round runs `clients` clients, each streaming the agent utterances (`pcm_24000`, the
 * catalog's Aria) back to back and reading as fast as it can. Rounds alternate between off
 * and on, so a drift of the machine's load falls on both alike. The figure is the api's CPU
 * (its process tree, the speech engine included) per second of audio delivered. Prints
 * Markdown and writes bench/results/alignment[-quick].json; bench/README.md is left alone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { NATIVE_VOICES } from '../src/tts/providers/native/index.ts';
import { OneShotTarget } from './lib/oneshot.ts';
import { processTreeCpuSeconds } from './lib/stats.ts';
import { type StreamTarget, streamUtterance } from './lib/streaming.ts';
import { BENCH_ESPEAK_VOICE, UTTERANCES } from './lib/texts.ts';

const quick = process.argv.includes('--quick');
const settings = quick
  ? { rounds: 2, clients: 4, perClient: 4 }
  : { rounds: 6, clients: 8, perClient: 12 };
/** The most CPU alignment may add, as a share of the stream without it. */
const TARGET_EXTRA = 0.05;
const log = (line: string) => process.stderr.write(`  ${line}\n`);

interface Tally {
  utterances: number;
  audioS: number;
  cpuS: number;
  errors: number;
}

/** One round: `clients` closed-loop clients, each speaking `perClient` utterances. */
async function round(target: StreamTarget, pid: number, tally: Tally): Promise<void> {
  const before = processTreeCpuSeconds(pid);
  await Promise.all(
    Array.from({ length: settings.clients }, async (_, client) => {
      for (let i = 0; i < settings.perClient; i++) {
        const text = UTTERANCES[(client + i) % UTTERANCES.length] as string;
        try {
          const utterance = await streamUtterance(target, text);
          tally.utterances++;
          tally.audioS += utterance.audioMs / 1000;
        } catch {
          tally.errors++;
        }
      }
    }),
  );
  tally.cpuS += processTreeCpuSeconds(pid) - before;
}

const voice = NATIVE_VOICES.find((entry) => entry.providerVoiceId === BENCH_ESPEAK_VOICE);
if (!voice) throw new Error(`no catalog voice uses ${BENCH_ESPEAK_VOICE}`);
const server = new OneShotTarget();
await server.start();
const off: Tally = { utterances: 0, audioS: 0, cpuS: 0, errors: 0 };
const on: Tally = { utterances: 0, audioS: 0, cpuS: 0, errors: 0 };
try {
  const target: StreamTarget = {
    url: server.url,
    key: server.key,
    voiceId: voice.id,
    format: 'pcm_24000',
  };
  // Not counted: connections, engines and threads warm up.
  await round(target, server.pid, { utterances: 0, audioS: 0, cpuS: 0, errors: 0 });
  await round({ ...target, alignment: 'word' }, server.pid, {
    utterances: 0,
    audioS: 0,
    cpuS: 0,
    errors: 0,
  });
  for (let index = 0; index < settings.rounds; index++) {
    const aligned = index % 2 === 1;
    log(`alignment ${aligned ? 'on' : 'off'}, round ${Math.floor(index / 2) + 1}`);
    await round(
      aligned ? { ...target, alignment: 'word' } : target,
      server.pid,
      aligned ? on : off,
    );
  }
} finally {
  await server.stop();
}

const perAudioMs = (tally: Tally) => (tally.cpuS * 1000) / tally.audioS;
const extra = perAudioMs(on) / perAudioMs(off) - 1;
const row = (name: string, tally: Tally) =>
  `| ${name} | ${tally.utterances} | ${tally.audioS.toFixed(1)} | ${tally.cpuS.toFixed(2)} | ${perAudioMs(tally).toFixed(2)} | ${tally.errors} |`;
const date = new Date().toISOString();
const lines = [
  `Run on ${date.slice(0, 10)} with \`node --import tsx bench/alignment.ts${quick ? ' --quick' : ''}\` on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}: ${settings.clients} closed-loop clients, ${settings.rounds / 2} rounds each way of ${settings.clients * settings.perClient} utterances, \`pcm_24000\`.`,
  '',
  '| alignment | utterances | audio s | api CPU s | api CPU ms / audio s | errors |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
  row('off', off),
  row('`word`', on),
  '',
  `Alignment adds ${(extra * 100).toFixed(1)}% CPU per audio second (target: at most ${TARGET_EXTRA * 100}%): ${extra <= TARGET_EXTRA ? 'met' : 'not met'}.`,
];
process.stdout.write(`${lines.join('\n')}\n`);
const benchDir = import.meta.dirname;
mkdirSync(path.join(benchDir, 'results'), { recursive: true });
writeFileSync(
  path.join(benchDir, 'results', quick ? 'alignment-quick.json' : 'alignment.json'),
  `${JSON.stringify(
    {
      date,
      command: process.argv.slice(2).join(' '),
      settings,
      off: { ...off, cpu_ms_per_audio_s: perAudioMs(off) },
      word: { ...on, cpu_ms_per_audio_s: perAudioMs(on) },
      extra_cpu: extra,
      target: { limit: TARGET_EXTRA, met: extra <= TARGET_EXTRA },
    },
    null,
    2,
  )}\n`,
);
