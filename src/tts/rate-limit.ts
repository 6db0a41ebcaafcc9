import type { AuthContext } from '../auth/context.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { SynthesisGuard } from './ports.ts';

/** Per-key limit on synthesis requests, shared by every api process through Redis. */
export class KeyRateLimitGuard implements SynthesisGuard {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly perMinute: number,
  ) {}

  admit(auth: AuthContext): Promise<void> {
    return this.limiter.enforce(`tts:${auth.keyId}`, { perMinute: this.perMinute });
  }
}
