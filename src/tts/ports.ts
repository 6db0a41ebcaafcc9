import type { OutputFormat } from '../../media/formats.ts';
import type { Environment } from '../app/config.ts';
import type { AuthContext } from '../auth/context.ts';

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

/**
 * A signed-in operator synthesizing from the dashboard Playground: no API key, the
 * member's workspace is charged and the ledger row names the operator.
 */
export interface OperatorCaller {
  readonly credential: 'operator_session';
  readonly userId: string;
  readonly email: string;
  readonly workspaceId: string;
  readonly environment: Environment;
}

/** Who a synthesis is for and charged to, after the account checks passed. */
export type SynthesisCaller = AuthContext | OperatorCaller;

/** The API key a synthesis is recorded under; null for an operator in the dashboard. */
export function callerKeyId(caller: SynthesisCaller): string | null {
  return caller.credential === 'operator_session' ? null : caller.keyId;
}

/** The operator's email a synthesis is recorded under; null for key requests. */
export function callerOperatorEmail(caller: SynthesisCaller): string | null {
  return caller.credential === 'operator_session' ? caller.email : null;
}

/** Admission of a synthesis request: per-caller rate limits. Throws `rate_limited`. */
export interface SynthesisGuard {
  admit(caller: SynthesisCaller): Promise<void>;
}

/** What synthesis reports for the operator's metrics; every method is cheap and sync. */
export interface SynthesisObserver {
  streamOpened(): void;
  streamClosed(): void;
  /** Seconds from the request (one-shot) or the first flush (stream) to the first audio. */
  firstAudio(transport: 'http' | 'websocket', seconds: number): void;
  failed(transport: 'http' | 'websocket', code: string): void;
}
