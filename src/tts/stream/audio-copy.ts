import { getOutputFormatInfo, type OutputFormat } from '../../../media/formats.ts';
import type { Environment } from '../../app/config.ts';
import type { AudioPersister } from '../ports.ts';

/**
 * The copy of a stream's encoded audio kept for storage. It gives up (keeps nothing) once
 * the audio exceeds `maxBytes`, or when discarded because the request did not succeed.
 */
export class StreamAudioCopy {
  #chunks: Buffer[] | null;
  #bytes = 0;

  /** With `enabled` false (persistence off) nothing would read the copy: keep none. */
  constructor(
    enabled: boolean,
    private readonly maxBytes: number,
  ) {
    this.#chunks = enabled ? [] : null;
  }

  /** Appends one piece of audio as it was sent. */
  collect(piece: Buffer): void {
    if (!this.#chunks) return;
    this.#bytes += piece.byteLength;
    if (this.#bytes > this.maxBytes) {
      this.#chunks = null;
      return;
    }
    this.#chunks.push(piece);
  }

  /** Drops what was kept; later pieces are ignored. */
  discard(): void {
    this.#chunks = null;
  }

  /** The whole copy, once; `undefined` when nothing was kept. */
  take(): Buffer | undefined {
    const chunks = this.#chunks;
    this.#chunks = null;
    if (!chunks || chunks.length === 0) return undefined;
    return Buffer.concat(chunks);
  }
}

/**
 * Hands a finished stream's audio to persistence once the `finish` event is out: on the
 * next turn of the event loop, so storing never delays the answer.
 */
export function persistAfterFinish(
  persister: AudioPersister,
  request: {
    requestId: string;
    workspaceId: string;
    environment: Environment;
    format: OutputFormat;
    audio: Buffer;
  },
): void {
  setImmediate(() => {
    void persister.enqueue({
      ...request,
      contentType: getOutputFormatInfo(request.format).contentType,
    });
  });
}
