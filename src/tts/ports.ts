import type { OutputFormat } from '../../media/formats.ts';
import type { AuthContext } from '../auth/context.ts';
import type { Environment } from '../config.ts';

/** Best-effort storage of finished audio; never throws, never delays the response. */
export interface AudioPersister {
  enqueue(input: {
    requestId: string;
    workspaceId: string;
    environment: Environment;
    format: OutputFormat;
    contentType: string;
    audio: Buffer;
  }): Promise<void>;
}

/** Admission of a synthesis request: per-key rate limits. Throws `rate_limited`. */
export interface SynthesisGuard {
  admit(auth: AuthContext): Promise<void>;
}
