import { ApiError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { createSttProvider, type SttConfig } from '../stt/config.ts';
import { SttError } from '../stt/errors.ts';
import type { SttProvider, SttProviderName } from '../stt/provider.ts';

/**
 * The speech-to-text engine of realtime transcription: the worker's `SttProvider` seam,
 * configured by the same `STT_*` variables, created on the first session (so the embedded
 * Whisper sidecar starts only when someone transcribes, never at api start) and closed on
 * shutdown.
 */
export class TranscriptionEngine {
  #provider: SttProvider | undefined;
  #closed = false;

  constructor(
    private readonly config: SttConfig,
    private readonly logger: Logger,
    private readonly create: typeof createSttProvider = createSttProvider,
  ) {}

  /** `STT_PROVIDER`: which engine sessions use. */
  get name(): SttProviderName {
    return this.config.STT_PROVIDER;
  }

  /** Silence inside speech after which the embedded engine starts early (0: never). */
  get pauseMs(): number {
    return this.config.STT_PROVIDER === 'embedded' ? this.config.STT_EARLY_START_PAUSE_MS : 0;
  }

  /**
   * The recognition language for a session: the primary subtag of the client's BCP 47 tag
   * (`es-MX` gives `es`), else `STT_LANGUAGE` unless it is `auto`, else none (detected).
   */
  language(tag: string | undefined): string | undefined {
    if (tag !== undefined) return tag.split('-')[0]?.toLowerCase();
    const configured = this.config.STT_LANGUAGE;
    return configured === undefined || configured === 'auto' ? undefined : configured;
  }

  /**
   * The provider, created on first use; the embedded sidecar then starts loading at once.
   * `provider_auth_missing` when the engine is not configured or installed.
   */
  provider(): SttProvider {
    if (this.#closed) throw new ApiError('service_unavailable', 'The service is shutting down.');
    if (this.#provider) return this.#provider;
    let provider: SttProvider;
    try {
      provider = this.create(this.config, this.logger);
    } catch (error) {
      if (error instanceof SttError) {
        this.logger.error({ err: error }, 'realtime transcription: the engine is not available');
        throw error.toApiError();
      }
      throw error;
    }
    this.#provider = provider;
    provider.warmUp?.().catch((error: unknown) => {
      this.logger.warn({ err: error }, 'realtime transcription: the engine did not start');
    });
    return provider;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const provider = this.#provider;
    this.#provider = undefined;
    await provider?.close();
  }
}
