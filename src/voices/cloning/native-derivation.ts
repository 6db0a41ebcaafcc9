import { ANALYSIS_RATE_HZ } from './sample-audio.ts';

/** What was measured from a voice's recordings. */
export interface MeasuredVoice {
  /** Median fundamental frequency of voiced frames, Hz. */
  medianPitchHz: number;
  /** Words of the transcripts per minute of active speech. */
  wordsPerMinute: number;
  voicedFrames: number;
}

/** A native (espeak-ng) voice derived from measurements. */
export interface DerivedNativeVoice {
  /** The route's provider voice reference: `voice+variant/pNN/wNNN`. */
  reference: string;
  measured: MeasuredVoice;
}

const FRAME = Math.round(ANALYSIS_RATE_HZ * 0.04);
const HOP = Math.round(ANALYSIS_RATE_HZ * 0.02);
const MIN_F0_HZ = 60;
/**
 * Frames whose pitch is searched between two yields to the event loop: a few tens of
 * milliseconds of work, so five minutes of recordings never hold the process for seconds.
 */
const FRAMES_PER_SLICE = 50;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const MAX_F0_HZ = 400;

/**
 * Pitch by normalized autocorrelation on 40 ms frames (20 ms hop) of frames within 30 dB
 * of the loudest one; a frame is voiced when its best normalized correlation in the
 * 60..400 Hz lag range is at least 0.5. Speaking rate: transcript words over the time of
 * active frames, so pauses do not slow the derived voice.
 */
export async function measureVoice(
  recordings: readonly { pcm: Int16Array; transcript: string }[],
): Promise<MeasuredVoice> {
  const pitches: number[] = [];
  let activeFrames = 0;
  let words = 0;
  for (const { pcm, transcript } of recordings) {
    words += transcript.split(/\s+/u).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
    const energies: number[] = [];
    for (let start = 0; start + FRAME <= pcm.length; start += HOP) {
      let sum = 0;
      for (let i = start; i < start + FRAME; i += 1) sum += (pcm[i] ?? 0) ** 2;
      energies.push(sum / FRAME);
    }
    const loudest = energies.reduce((max, energy) => Math.max(max, energy), 0);
    const floor = loudest / 1000;
    for (const [index, energy] of energies.entries()) {
      if (energy <= floor || energy === 0) continue;
      activeFrames += 1;
      if (activeFrames % FRAMES_PER_SLICE === 0) await yieldToEventLoop();
      const f0 = framePitch(pcm, index * HOP);
      if (f0 !== null) pitches.push(f0);
    }
  }
  pitches.sort((a, b) => a - b);
  const medianPitchHz = pitches.length > 0 ? (pitches[pitches.length >> 1] ?? 0) : 0;
  const activeSeconds = (activeFrames * HOP) / ANALYSIS_RATE_HZ;
  return {
    medianPitchHz: Math.round(medianPitchHz),
    wordsPerMinute: activeSeconds > 0 ? Math.round((words / activeSeconds) * 60) : 0,
    voicedFrames: pitches.length,
  };
}

function framePitch(pcm: Int16Array, start: number): number | null {
  const minLag = Math.floor(ANALYSIS_RATE_HZ / MAX_F0_HZ);
  const maxLag = Math.ceil(ANALYSIS_RATE_HZ / MIN_F0_HZ);
  const length = FRAME;
  if (start + length + maxLag > pcm.length) return null;
  let energy = 0;
  for (let i = 0; i < length; i += 1) energy += (pcm[start + i] ?? 0) ** 2;
  let bestLag = 0;
  let best = 0;
  for (let lag = minLag; lag <= maxLag; lag += 1) {
    let cross = 0;
    let lagged = 0;
    for (let i = 0; i < length; i += 1) {
      const a = pcm[start + i] ?? 0;
      const b = pcm[start + i + lag] ?? 0;
      cross += a * b;
      lagged += b * b;
    }
    const score = cross / Math.sqrt(energy * lagged || 1);
    if (score > best) {
      best = score;
      bestLag = lag;
    }
  }
  return best >= 0.5 && bestLag > 0 ? ANALYSIS_RATE_HZ / bestLag : null;
}

/** espeak-ng language voices for the sample languages the service knows. */
const ESPEAK_LANGUAGE: Readonly<Record<string, string>> = {
  en: 'en-us',
  'en-us': 'en-us',
  'en-gb': 'en-gb',
  zh: 'cmn-latn-pinyin',
  'zh-cn': 'cmn-latn-pinyin',
  ja: 'ja',
};

/**
 * Calibration measured with {@link measureVoice} on espeak-ng 1.51's own speech (en-us,
 * `-s 150`): `+m3 -p 50` has a median pitch of 105 Hz and `-p 20` 80 Hz; `+f3 -p 50`
 * 208 Hz and `-p 80` 271 Hz. Both are about 77 `-p` steps per octave. At `-s 150` the
 * measured active-speech rate is about 186 words per minute (pauses excluded), so `-s` is
 * 0.81 of the measured rate.
 */
const VARIANT_BASE_HZ = { m3: 105, f3: 208 } as const;
const PITCH_STEPS_PER_OCTAVE = 77;
/** Between the two variants' base pitches (their geometric mean). */
const VARIANT_SPLIT_HZ = 148;
const RATE_CALIBRATION = 0.81;

/**
 * Maps measurements onto espeak-ng: the variant by pitch (below 148 Hz the male `+m3`,
 * else the female `+f3`), `-p` by the distance in octaves from that variant's base pitch
 * (77 steps per octave around 50, clamped to 0..99), `-s` from the measured rate (× 0.81,
 * clamped to 80..450), the language voice by the recordings' language. A recording made
 * by espeak-ng itself maps back to within a few steps of its own parameters.
 */
export function deriveNativeVoice(measured: MeasuredVoice, language: string): DerivedNativeVoice {
  const lower = language.toLowerCase();
  const voice =
    ESPEAK_LANGUAGE[lower] ??
    ESPEAK_LANGUAGE[lower.split('-')[0] ?? ''] ??
    (lower.split('-')[0] || 'en-us');
  const variant =
    measured.medianPitchHz > 0 && measured.medianPitchHz < VARIANT_SPLIT_HZ ? 'm3' : 'f3';
  const pitch =
    measured.medianPitchHz > 0
      ? 50 + PITCH_STEPS_PER_OCTAVE * Math.log2(measured.medianPitchHz / VARIANT_BASE_HZ[variant])
      : 50;
  const wpm = measured.wordsPerMinute > 0 ? measured.wordsPerMinute * RATE_CALIBRATION : 175;
  return {
    reference: `${voice}+${variant}/p${clamp(pitch, 0, 99)}/w${clamp(wpm, 80, 450)}`,
    measured,
  };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)));
}
