import { ApiError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { AuthContext } from './context.ts';
import type { ResolvedKey } from './key-store.ts';

/** Why work running on `key` must stop now, or undefined while the key may still be used. */
export function credentialRefusal(key: ResolvedKey | null): ApiError | undefined {
  if (key?.status !== 'active') {
    return new ApiError('unauthorized', 'The key of this connection was revoked.');
  }
  if (key.workspaceStatus === 'suspended') {
    return new ApiError('organization_suspended', 'The workspace is suspended.');
  }
  return undefined;
}

interface Watched {
  readonly keyId: string;
  readonly stop: (error: ApiError) => void;
}

export interface CredentialWatchOptions {
  /** Looks a key up with its workspace's state (the api's key cache, at most 1 s old). */
  keys: { resolveById(keyId: string): Promise<ResolvedKey | null> };
  /** How often the keys of open connections are looked up again. */
  intervalMs: number;
  logger: Logger;
}

/**
 * Open connections of this process (streaming synthesis, realtime transcription) by the key
 * they were opened with. Every `intervalMs` the state of each of those keys is read again
 * from the database through the key cache; a connection whose key was revoked, or whose
 * workspace was suspended, is stopped with the spec's error. Reading the shared state
 * (rather than being told by the process that revoked) makes a revocation by any process
 * (another api node, the operator tool) reach every node.
 */
export class CredentialWatch {
  readonly #watched = new Set<Watched>();
  readonly #timer: NodeJS.Timeout;
  #checking = false;

  constructor(private readonly options: CredentialWatchOptions) {
    this.#timer = setInterval(() => void this.check(), options.intervalMs);
    this.#timer.unref();
  }

  /** Watches one connection until the returned function is called (the connection closed). */
  watch(auth: AuthContext, stop: (error: ApiError) => void): () => void {
    const entry: Watched = { keyId: auth.keyId, stop };
    this.#watched.add(entry);
    return () => {
      this.#watched.delete(entry);
    };
  }

  /** Looks every watched key up once and stops the connections that must end. */
  async check(): Promise<void> {
    if (this.#checking || this.#watched.size === 0) return;
    this.#checking = true;
    try {
      const keyIds = new Set([...this.#watched].map((entry) => entry.keyId));
      const refusals = new Map<string, ApiError>();
      for (const keyId of keyIds) {
        const refusal = credentialRefusal(await this.options.keys.resolveById(keyId));
        if (refusal) refusals.set(keyId, refusal);
      }
      for (const entry of [...this.#watched]) {
        const refusal = refusals.get(entry.keyId);
        if (!refusal) continue;
        this.#watched.delete(entry);
        entry.stop(refusal);
      }
    } catch (error) {
      // The next tick tries again; a database blip must not end healthy connections.
      this.options.logger.warn({ err: error }, 'checking the keys of open connections failed');
    } finally {
      this.#checking = false;
    }
  }

  close(): void {
    clearInterval(this.#timer);
    this.#watched.clear();
  }
}
