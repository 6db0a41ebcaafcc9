/** Slowest `voice_settings.speed` ElevenLabs accepts. */
export const ELEVENLABS_MIN_SPEED = 0.7;
/** Fastest `voice_settings.speed` ElevenLabs accepts. */
export const ELEVENLABS_MAX_SPEED = 1.2;

/**
 * The public speed multiplier as ElevenLabs `voice_settings.speed`: clamped to 0.7..1.2,
 * the range the vendor accepts (it refuses values outside it), so speed 2 speaks at 1.2 and
 * 0.5 at 0.7. Undefined for a missing, non-finite or non-positive speed and for exactly 1,
 * so the voice's stored speed applies.
 *
 * @example elevenLabsSpeed(1.5) // 1.2
 */
export function elevenLabsSpeed(speed: number | undefined): number | undefined {
  if (speed === undefined || !Number.isFinite(speed) || speed <= 0 || speed === 1) {
    return undefined;
  }
  return Math.min(ELEVENLABS_MAX_SPEED, Math.max(ELEVENLABS_MIN_SPEED, speed));
}
