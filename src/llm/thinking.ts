import type { ThinkingLevel } from './provider.ts';

/** Every level, from none to the most reasoning. */
export const THINKING_LEVEL_ORDER: readonly ThinkingLevel[] = ['off', 'low', 'medium', 'high'];

/**
 * The level a model runs when asked for `asked`: the asked one when the model supports it,
 * else the supported one nearest to it (ties go to less reasoning, `off` being always
 * supported). An Agent keeps the level it was given; only the request to the model changes.
 */
export function nearestThinkingLevel(
  supported: readonly ThinkingLevel[],
  asked: ThinkingLevel,
): ThinkingLevel {
  if (supported.includes(asked)) return asked;
  const rank = THINKING_LEVEL_ORDER.indexOf(asked);
  let best: ThinkingLevel = 'off';
  for (const level of supported) {
    const distance = Math.abs(THINKING_LEVEL_ORDER.indexOf(level) - rank);
    if (distance < Math.abs(THINKING_LEVEL_ORDER.indexOf(best) - rank)) best = level;
  }
  return best;
}
