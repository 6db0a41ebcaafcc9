import type { TranscoderFactory } from '../../../media/transcode.ts';
import type { Ledger } from '../../billing/ledger.ts';
import type { Logger } from '../../observability/logger.ts';
import type { VoiceCatalog } from '../../voices/catalog.ts';
import type { AudioPersister, SynthesisGuard, SynthesisObserver } from '../ports.ts';
import type { StreamSlots } from './stream-slots.ts';

/** What a streaming request needs from the rest of the api. */
export interface StreamDependencies {
  catalog: VoiceCatalog;
  ledger: Ledger;
  guard: SynthesisGuard;
  slots: StreamSlots;
  persister: AudioPersister;
  logger: Logger;
  opusComplexity?: number | undefined;
  /** Where resampling and encoding run. Default: this thread. */
  transcoders?: TranscoderFactory | undefined;
  /** Longest wait for a client event until `stop`. */
  idleTimeoutMs: number;
  /** Streams whose audio exceeds this are not stored. */
  persistMaxBytes: number;
  observer?: SynthesisObserver | undefined;
}
