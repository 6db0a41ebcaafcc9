/** espeak-ng's default speaking rate in words per minute (speed multiplier 1). */
export const DEFAULT_WORDS_PER_MINUTE = 175;
/** Slowest rate espeak-ng accepts. */
export const MIN_WORDS_PER_MINUTE = 80;
/** Fastest rate we pass; espeak-ng's normal range ends here. */
export const MAX_WORDS_PER_MINUTE = 450;

/**
 * Maps the public speed multiplier onto espeak-ng's `-s` rate:
 * `round(175 × speed)` words per minute, clamped to 80..450. A missing, non-finite or
 * non-positive speed means 1 (175 wpm). So speed 0.5 → 88, 2 → 350, 3 and above → 450,
 * 0.45 and below → 80.
 *
 * @example wordsPerMinute(1.2) // 210
 */
export function wordsPerMinute(speed: number | undefined): number {
  if (speed === undefined || !Number.isFinite(speed) || speed <= 0) {
    return DEFAULT_WORDS_PER_MINUTE;
  }
  const wpm = Math.round(DEFAULT_WORDS_PER_MINUTE * speed);
  return Math.min(MAX_WORDS_PER_MINUTE, Math.max(MIN_WORDS_PER_MINUTE, wpm));
}
