import type { AuthContext } from '../auth/context.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { SynthesisGuard } from './ports.ts';

/**
 * Limits on synthesis requests, shared by every api process through Redis: one bucket per
 * API key and one per workspace (all its keys together), so a workspace cannot multiply
 * its rate by minting keys. Both are decided in one Redis call: a request either bucket
 * refuses takes nothing from the other.
 */
export class KeyRateLimitGuard implements SynthesisGuard {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly perMinute: number,
    private readonly workspacePerMinute = 0,
  ) {}

  async admit(auth: AuthContext): Promise<void> {
    await this.limiter.enforceAll([
      { bucket: `tts:${auth.keyId}`, limit: { perMinute: this.perMinute } },
      {
        bucket: `tts-workspace:${auth.workspaceId}`,
        limit: { perMinute: this.workspacePerMinute },
      },
    ]);
  }
}
