/** Slowest `prosody.speed` Fish Audio accepts. */
export const FISHAUDIO_MIN_SPEED = 0.5;
/** Fastest `prosody.speed` Fish Audio accepts. */
export const FISHAUDIO_MAX_SPEED = 2;

/**
 * The public speed multiplier as Fish Audio `prosody.speed`, clamped to 0.5..2. Undefined
 * (nothing sent) for a missing, non-finite or non-positive speed and for exactly 1.
 *
 * @example fishAudioSpeed(3) // 2
 */
export function fishAudioSpeed(speed: number | undefined): number | undefined {
  if (speed === undefined || !Number.isFinite(speed) || speed <= 0 || speed === 1) {
    return undefined;
  }
  return Math.min(FISHAUDIO_MAX_SPEED, Math.max(FISHAUDIO_MIN_SPEED, speed));
}
