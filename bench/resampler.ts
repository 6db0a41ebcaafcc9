/**
 * The resampler stage alone: CPU milliseconds per second of audio for each resampler
 * available here, on espeak-ng speech (the long bench text, Aria) pushed in the engine's
 * chunk size, plus each one's SNR on the quality test's sine sweep (test/unit/media/
 * resample.test.ts: 50 Hz to 90% of the lower Nyquist frequency, 2 s).
 *
 * - polyphase: media/polyphase-resampler.ts (the default since this bench was written)
 * - speex q7: media/speex-resampler.ts at quality 7 (the previous default)
 * - soxr (rtc-node) MEDIUM / VERY_HIGH: @livekit/rtc-node's AudioResampler (libsoxr in
 *   LiveKit's native FFI library), installed for the agent worker
 *
 * Then the same speech through the in-thread transcoder (media/transcode.ts: resampler,
 * encoder) to pcm_24000, pcm_48000 and opus_48000_64, with the polyphase and the Speex
 * resampler, to show what the change is worth in the pipeline.
 *
 * Run: `node --import tsx bench/resampler.ts [--rounds N]`. Writes
 * bench/results/resampler.json and prints a Markdown table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';
import type { OutputFormat } from '../media/formats.ts';
import { float32ToPcm, type PcmChunk, pcmToFloat32, pcmToInt16 } from '../media/pcm.ts';
import { createResampler } from '../media/resample.ts';
import { encodeAudio } from '../media/transcode.ts';
import { espeakPcm } from './lib/raw.ts';
import { quantile } from './lib/stats.ts';
import { BENCH_ESPEAK_VOICE, LONG_TEXT } from './lib/texts.ts';

const roundsFlag = process.argv.indexOf('--rounds');
const ROUNDS = roundsFlag >= 0 ? Number(process.argv[roundsFlag + 1]) : 7;
/** Samples per push: espeak-ng's stdout arrives in blocks of this order. */
const CHUNK_SAMPLES = 2048;

/** One resampler run over a whole input: chunks in, all output bytes out. */
type Run = (pcm: Buffer, fromHz: number, toHz: number) => Promise<Buffer>;

function ours(quality: number | undefined): Run {
  return async (pcm, fromHz, toHz) => {
    const resampler = await createResampler(fromHz, toHz, quality === undefined ? {} : { quality });
    const parts: Buffer[] = [];
    for (let at = 0; at < pcm.byteLength; at += CHUNK_SAMPLES * 2) {
      parts.push(resampler.push(pcm.subarray(at, at + CHUNK_SAMPLES * 2)));
    }
    parts.push(resampler.flush());
    resampler.destroy();
    return Buffer.concat(parts);
  };
}

function soxr(quality: AudioResamplerQuality): Run {
  return async (pcm, fromHz, toHz) => {
    const resampler = new AudioResampler(fromHz, toHz, 1, quality);
    const samples = pcmToInt16(pcm);
    const parts: Buffer[] = [];
    const take = (frames: AudioFrame[]) => {
      for (const frame of frames)
        parts.push(Buffer.from(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength));
    };
    for (let at = 0; at < samples.length; at += CHUNK_SAMPLES) {
      const block = samples.slice(at, at + CHUNK_SAMPLES);
      take(resampler.push(new AudioFrame(block, fromHz, 1, block.length)));
    }
    take(resampler.flush());
    resampler.close();
    return Buffer.concat(parts);
  };
}

const ENGINES: { readonly name: string; readonly run: Run }[] = [
  { name: 'polyphase', run: ours(undefined) },
  { name: 'speex q7', run: ours(7) },
  { name: 'soxr (rtc-node) MEDIUM', run: soxr(AudioResamplerQuality.MEDIUM) },
  { name: 'soxr (rtc-node) VERY_HIGH', run: soxr(AudioResamplerQuality.VERY_HIGH) },
];

/** espeak-ng's rate to each output rate, and Kokoro's 24 kHz to the others. */
const RATIOS: readonly (readonly [number, number])[] = [
  [22050, 24000],
  [22050, 48000],
  [22050, 44100],
  [22050, 16000],
  [24000, 48000],
  [24000, 44100],
  [24000, 16000],
];

/** The sweep's value at time `t` seconds. */
function sweepAt(t: number, seconds: number, f0Hz: number, f1Hz: number): number {
  const slope = (f1Hz - f0Hz) / seconds;
  return 0.5 * Math.sin(2 * Math.PI * (f0Hz * t + 0.5 * slope * t * t));
}

function sweep(rateHz: number, seconds: number, f0Hz: number, f1Hz: number): Float32Array {
  const out = new Float32Array(Math.round(rateHz * seconds));
  for (let i = 0; i < out.length; i++) out[i] = sweepAt(i / rateHz, seconds, f0Hz, f1Hz);
  return out;
}

/**
 * SNR of the resampled sweep against the ideal one, as the quality test computes it, at
 * the best alignment: soxr delays its output by its filter (not a whole number of samples
 * at every ratio) where ours and Speex skip it, so the delay is searched, whole samples
 * up to 200 and then fractions of one.
 */
async function sweepSnrDb(run: Run, fromHz: number, toHz: number): Promise<number> {
  const seconds = 2;
  const topHz = 0.9 * (Math.min(fromHz, toHz) / 2);
  const output = pcmToFloat32(
    await run(float32ToPcm(sweep(fromHz, seconds, 50, topHz)), fromHz, toHz),
  );
  const length = Math.round(toHz * seconds);
  const edge = Math.round(toHz * 0.01);
  // SNR when output[i] is taken as the ideal sweep at (i - delay) / toHz.
  const snrAt = (delay: number): number => {
    const whole = Math.round(delay);
    let signal = 0;
    let noise = 0;
    const end = Math.min(length, output.length - whole) - edge;
    for (let i = edge; i < end; i++) {
      const ideal = sweepAt((i + whole - delay) / toHz, seconds, 50, topHz);
      signal += ideal ** 2;
      noise += (ideal - output[i + whole]!) ** 2;
    }
    return 10 * Math.log10(signal / noise);
  };
  let bestWhole = 0;
  let best = Number.NEGATIVE_INFINITY;
  for (let shift = 0; shift <= 200; shift++) {
    const snr = snrAt(shift);
    if (snr > best) [best, bestWhole] = [snr, shift];
  }
  // Ternary search of the fractional part: the SNR is unimodal within a sample of the peak.
  let low = bestWhole - 0.5;
  let high = bestWhole + 0.5;
  for (let step = 0; step < 30; step++) {
    const a = low + (high - low) / 3;
    const b = high - (high - low) / 3;
    if (snrAt(a) < snrAt(b)) low = a;
    else high = b;
  }
  return Math.max(best, snrAt((low + high) / 2));
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

const speech22k = await espeakPcm(LONG_TEXT, BENCH_ESPEAK_VOICE);
// Kokoro's rate: the same speech brought to 24 kHz once (by the reference path, outside the timing).
const speech24k = await ours(7)(speech22k, 22050, 24000);
const audioS = speech22k.byteLength / 2 / 22050;

interface Row {
  from_hz: number;
  to_hz: number;
  engine: string;
  cpu_ms_per_audio_s: { p50: number; min: number };
  sweep_snr_db: number;
}
const rows: Row[] = [];
for (const [fromHz, toHz] of RATIOS) {
  const input = fromHz === 22050 ? speech22k : speech24k;
  const samples: number[][] = ENGINES.map(() => []);
  await Promise.all(ENGINES.map((engine) => engine.run(input, fromHz, toHz))); // warm-up
  // Engines interleave round by round so load from other jobs hits them alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, engine] of ENGINES.entries()) {
      const before = cpuMs();
      await engine.run(input, fromHz, toHz);
      samples[index]!.push((cpuMs() - before) / audioS);
    }
  }
  for (const [index, engine] of ENGINES.entries()) {
    const values = samples[index]!;
    rows.push({
      from_hz: fromHz,
      to_hz: toHz,
      engine: engine.name,
      cpu_ms_per_audio_s: { p50: quantile(values, 0.5), min: Math.min(...values) },
      sweep_snr_db: await sweepSnrDb(engine.run, fromHz, toHz),
    });
  }
}

async function* chunksOf(pcm: Buffer): AsyncIterable<PcmChunk> {
  for (let at = 0; at < pcm.byteLength; at += CHUNK_SAMPLES * 2) {
    yield { data: pcm.subarray(at, at + CHUNK_SAMPLES * 2), sampleRateHz: 22050 };
  }
}

/** CPU ms of one in-thread transcode of the 22,050 Hz speech into `format`. */
async function transcodeCpuMs(format: OutputFormat, quality: number | undefined): Promise<number> {
  const before = cpuMs();
  const signal = new AbortController().signal;
  const resampler = quality === undefined ? {} : { quality };
  for await (const _bytes of encodeAudio(chunksOf(speech22k), format, signal, { resampler })) {
    // drain
  }
  return cpuMs() - before;
}

interface PipelineRow {
  format: OutputFormat;
  engine: string;
  cpu_ms_per_audio_s: { p50: number; min: number };
}
const pipelineRows: PipelineRow[] = [];
const PIPELINE_ENGINES = [
  { name: 'polyphase', quality: undefined },
  { name: 'speex q7', quality: 7 },
] as const;
for (const format of ['pcm_24000', 'pcm_48000', 'opus_48000_64'] as const) {
  const samples: number[][] = PIPELINE_ENGINES.map(() => []);
  for (const engine of PIPELINE_ENGINES) await transcodeCpuMs(format, engine.quality); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, engine] of PIPELINE_ENGINES.entries()) {
      samples[index]!.push((await transcodeCpuMs(format, engine.quality)) / audioS);
    }
  }
  for (const [index, engine] of PIPELINE_ENGINES.entries()) {
    const values = samples[index]!;
    pipelineRows.push({
      format,
      engine: engine.name,
      cpu_ms_per_audio_s: { p50: quantile(values, 0.5), min: Math.min(...values) },
    });
  }
}

const result = {
  date: new Date().toISOString(),
  command: `node --import tsx bench/resampler.ts --rounds ${ROUNDS}`,
  machine: {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    load_average_1m: loadavg()[0] ?? 0,
  },
  audio_s: audioS,
  chunk_samples: CHUNK_SAMPLES,
  rows,
  pipeline: pipelineRows,
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/resampler.json', import.meta.url),
  `${JSON.stringify(result, null, 2)}\n`,
);

console.log(
  `${audioS.toFixed(1)} s of espeak-ng speech, ${ROUNDS} rounds, pushes of ${CHUNK_SAMPLES} samples, ${result.machine.cpus} x ${result.machine.cpu_model}, load average ${result.machine.load_average_1m.toFixed(1)}\n`,
);
console.log('| ratio | resampler | CPU ms / audio s, p50 | min | sweep SNR dB |');
console.log('| --- | --- | ---: | ---: | ---: |');
for (const row of rows) {
  console.log(
    `| ${row.from_hz} -> ${row.to_hz} | ${row.engine} | ${row.cpu_ms_per_audio_s.p50.toFixed(2)} | ${row.cpu_ms_per_audio_s.min.toFixed(2)} | ${row.sweep_snr_db.toFixed(1)} |`,
  );
}
console.log('\n| transcoder (22,050 Hz in) | resampler | CPU ms / audio s, p50 | min |');
console.log('| --- | --- | ---: | ---: |');
for (const row of pipelineRows) {
  console.log(
    `| ${row.format} | ${row.engine} | ${row.cpu_ms_per_audio_s.p50.toFixed(2)} | ${row.cpu_ms_per_audio_s.min.toFixed(2)} |`,
  );
}
process.exit(0);
