/**
 * Design of the Kaiser-windowed-sinc filter bank used by {@link PolyphaseResampler}
 * (./polyphase-resampler.ts): one set of taps per output phase of a rational ratio L/M.
 */

/** Passband edge as a fraction of the lower Nyquist frequency (the quality test's band). */
export const PASSBAND_FRACTION = 0.9;
/**
 * Stopband edge as a fraction of the lower Nyquist frequency. At 1.0 nothing above the
 * lower Nyquist frequency folds back (downsampling) and no image stays (upsampling).
 */
export const STOPBAND_FRACTION = 1.0;
/**
 * Stopband attenuation the filter is designed for. The quality test asks for 60 dB SNR; a
 * Kaiser design has equal passband ripple and stopband error, so 70 dB leaves margin for
 * both plus the 16-bit rounding of the output.
 */
export const STOPBAND_ATTENUATION_DB = 70;
/** Above this many taps in the whole bank (all phases) the design is refused: too much memory. */
export const MAX_BANK_TAPS = 1 << 18;
/** Above this many taps per phase (steep downsampling, over about 12:1) the design is refused. */
export const MAX_TAPS_PER_PHASE = 1024;

/** A polyphase filter bank for the ratio `upFactor / downFactor` (output / input rate). */
export interface PolyphaseBank {
  /** L: output rate / gcd. */
  readonly upFactor: number;
  /** M: input rate / gcd. */
  readonly downFactor: number;
  /** Taps per phase (a multiple of 8, for the SIMD kernel): input samples per output sample. */
  readonly tapsPerPhase: number;
  /**
   * All phases, phase-major: phase `p` (output time `p / L` input samples after an input
   * sample) uses `taps[p * tapsPerPhase + j]` for input sample `floor(t) - tapsPerPhase/2 + 1 + j`.
   */
  readonly taps: Float32Array;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Zeroth-order modified Bessel function of the first kind (power series; converges fast). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const quarterSquare = (x * x) / 4;
  for (let k = 1; k < 64; k++) {
    term *= quarterSquare / (k * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/** Kaiser's beta for a stopband attenuation in dB (Kaiser 1974, as in scipy's `kaiser_beta`). */
function kaiserBeta(attenuationDb: number): number {
  if (attenuationDb > 50) return 0.1102 * (attenuationDb - 8.7);
  if (attenuationDb >= 21) {
    return 0.5842 * (attenuationDb - 21) ** 0.4 + 0.07886 * (attenuationDb - 21);
  }
  return 0;
}

/** The reduced ratio `toHz / fromHz` as [L, M]. */
export function reducedRatio(fromHz: number, toHz: number): [upFactor: number, downFactor: number] {
  const divisor = gcd(fromHz, toHz);
  return [toHz / divisor, fromHz / divisor];
}

/** Number of taps one phase needs for `fromHz -> toHz`, before any bank is built. */
export function tapsPerPhaseFor(fromHz: number, toHz: number): number {
  // Transition width in cycles per input sample: from the passband to the stopband edge of
  // the lower Nyquist frequency.
  const lowerNyquist = Math.min(fromHz, toHz) / 2;
  const transition = ((STOPBAND_FRACTION - PASSBAND_FRACTION) * lowerNyquist) / fromHz;
  // Kaiser's length estimate, rounded up to a multiple of 8: even, so the filter is centred
  // between the two input samples around each output instant, and whole SIMD blocks.
  const length = (STOPBAND_ATTENUATION_DB - 7.95) / (2.285 * 2 * Math.PI * transition);
  return 8 * Math.ceil(length / 8);
}

const banks = new Map<string, PolyphaseBank>();

/**
 * The filter bank for `fromHz -> toHz`, designed once per process and shared by every
 * stream at that ratio, or `null` when the bank would exceed {@link MAX_BANK_TAPS} (an
 * awkward ratio such as 44,101 -> 48,000) or {@link MAX_TAPS_PER_PHASE}.
 */
export function polyphaseBank(fromHz: number, toHz: number): PolyphaseBank | null {
  const key = `${fromHz}:${toHz}`;
  const cached = banks.get(key);
  if (cached) return cached;
  const [upFactor, downFactor] = reducedRatio(fromHz, toHz);
  const tapsPerPhase = tapsPerPhaseFor(fromHz, toHz);
  if (upFactor * tapsPerPhase > MAX_BANK_TAPS || tapsPerPhase > MAX_TAPS_PER_PHASE) return null;

  // Cutoff halfway through the transition band, in cycles per input sample.
  const lowerNyquist = Math.min(fromHz, toHz) / 2;
  const cutoff = (((PASSBAND_FRACTION + STOPBAND_FRACTION) / 2) * lowerNyquist) / fromHz;
  const beta = kaiserBeta(STOPBAND_ATTENUATION_DB);
  const i0Beta = besselI0(beta);
  const halfLength = tapsPerPhase / 2;
  const taps = new Float32Array(upFactor * tapsPerPhase);
  const phaseTaps = new Float64Array(tapsPerPhase);
  for (let phase = 0; phase < upFactor; phase++) {
    const fraction = phase / upFactor;
    let sum = 0;
    for (let j = 0; j < tapsPerPhase; j++) {
      // Distance in input samples from output instant to this tap's input sample.
      const distance = fraction + halfLength - 1 - j;
      const x = 2 * cutoff * distance;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const ratio = distance / halfLength;
      const window =
        Math.abs(ratio) >= 1 ? 0 : besselI0(beta * Math.sqrt(1 - ratio * ratio)) / i0Beta;
      const value = 2 * cutoff * sinc * window;
      phaseTaps[j] = value;
      sum += value;
    }
    // Unit gain at DC for every phase, so a constant input gives a constant output and no
    // phase-dependent gain modulates the signal.
    for (let j = 0; j < tapsPerPhase; j++) {
      taps[phase * tapsPerPhase + j] = phaseTaps[j]! / sum;
    }
  }
  const bank: PolyphaseBank = { upFactor, downFactor, tapsPerPhase, taps };
  banks.set(key, bank);
  return bank;
}
