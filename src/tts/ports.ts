import type { OutputFormat } from '../../media/formats.ts';
import type { AuthContext } from '../auth/context.ts';
import type { Environment } from '../config.ts';

/** Best-effort storage of finished audio; never throws, never delays the response. */
export interface AudioPersister {
  /** False when persistence is off: callers then collect no audio for it at all. */
  readonly enabled: boolean;
  enqueue(input: {
    requestId: string;
    workspaceId: string;
    environment: Environment;
    format: OutputFormat;
    contentType: string;
    /** The audio, or a complete file of it that stays until the returned promise settles. */
    audio: Buffer | { readonly file: string; readonly byteLength: number };
  }): Promise<void>;
}

/** Admission of a synthesis request: per-key rate limits. Throws `rate_limited`. */
export interface SynthesisGuard {
  admit(auth: AuthContext): Promise<void>;
}

/** What synthesis reports for the operator's metrics; every method is cheap and sync. */
export interface SynthesisObserver {
  streamOpened(): void;
  streamClosed(): void;
  /** Seconds from the request (one-shot) or the first flush (stream) to the first audio. */
  firstAudio(transport: 'http' | 'websocket', seconds: number): void;
  failed(transport: 'http' | 'websocket', code: string): void;
}
