/** One recording sent to a vendor. `fileName` is `{sampleId}.{ext}`: it identifies the sample. */
export interface CloneFile {
  readonly fileName: string;
  readonly contentType: string;
  readonly data: Buffer;
  readonly transcript: string;
  readonly language: string;
}

/** What a new vendor voice is made from. */
export interface CloneCreateInput {
  /** Unique per attempt: a retry after a crash finds the voice again by this name. */
  readonly name: string;
  readonly description: string;
  readonly files: readonly CloneFile[];
}

/** A vendor voice just created. */
export interface CloneResult {
  readonly providerVoiceId: string;
  /** Set when the vendor holds the voice back (ElevenLabs `requires_verification`). */
  readonly blockedReason?: string | undefined;
}

/**
 * Voice cloning at one vendor account, one folder per vendor like the synthesis adapters.
 * Failures are `UpstreamProviderError`s: `retryable` decides whether the job retries.
 */
export interface VoiceCloner {
  /** The vendor's provider name (its descriptor's `kind`). */
  readonly provider: string;
  /**
   * True when the vendor can add recordings to an existing voice (a refresh then sends only
   * new ones); false when a refresh rebuilds a new voice from the full set.
   */
  readonly appendsRecordings: boolean;
  /** Creates a vendor voice. */
  create(input: CloneCreateInput, signal: AbortSignal): Promise<CloneResult>;
  /** The id of the caller's voice named exactly `name`, or null. */
  findByName(name: string, signal: AbortSignal): Promise<string | null>;
  /** Adds recordings to an existing voice (only when {@link appendsRecordings}). */
  append(
    providerVoiceId: string,
    name: string,
    files: readonly CloneFile[],
    signal: AbortSignal,
  ): Promise<void>;
  /** File names the vendor voice already holds (only when {@link appendsRecordings}). */
  fileNames(providerVoiceId: string, signal: AbortSignal): Promise<Set<string>>;
  /** Deletes a vendor voice a rebuild replaced; a voice already gone is not an error. */
  remove(providerVoiceId: string, signal: AbortSignal): Promise<void>;
  close(): void;
}
