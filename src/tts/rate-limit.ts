import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { SynthesisCaller, SynthesisGuard } from './ports.ts';

/**
 * Limits on synthesis requests, shared by every api process through Redis: one bucket per
 * API key (per signed-in operator for the dashboard Playground) and one per workspace (all
 * its keys and operators together), so a workspace cannot multiply its rate by minting
 * keys. Both are decided in one Redis call: a request either bucket refuses takes nothing
 * from the other.
 */
export class KeyRateLimitGuard implements SynthesisGuard {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly perMinute: number,
    private readonly workspacePerMinute = 0,
  ) {}

  async admit(caller: SynthesisCaller): Promise<void> {
    const own =
      caller.credential === 'operator_session'
        ? `tts-operator:${caller.userId}`
        : `tts:${caller.keyId}`;
    await this.limiter.enforceAll([
      { bucket: own, limit: { perMinute: this.perMinute } },
      {
        bucket: `tts-workspace:${caller.workspaceId}`,
        limit: { perMinute: this.workspacePerMinute },
      },
    ]);
  }
}
