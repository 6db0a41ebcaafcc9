/**
 * Cuts a stream of PCM bytes into fixed-size frames, keeping the remainder between pushes
 * so frame boundaries do not depend on how the input was chunked. Frame codecs (Opus)
 * need exactly one frame per call.
 *
 * @example
 * const framer = new PcmFramer(960 * 2); // 20 ms at 48 kHz
 * for (const frame of framer.push(pcm)) encode(frame);
 * const last = framer.flushPadded(); // null when nothing was left over
 */
export class PcmFramer {
  readonly frameBytes: number;
  #pending: Buffer = Buffer.alloc(0);

  constructor(frameBytes: number) {
    if (!Number.isInteger(frameBytes) || frameBytes <= 0 || frameBytes % 2 !== 0) {
      throw new RangeError(`frameBytes must be a positive even integer, got ${frameBytes}`);
    }
    this.frameBytes = frameBytes;
  }

  /** Bytes waiting for the next frame to complete. */
  get pendingBytes(): number {
    return this.#pending.byteLength;
  }

  /**
   * Add `pcm` and return every frame that is now complete, in order. Frames may be views
   * into `pcm`: consume them before the caller reuses that buffer.
   */
  push(pcm: Buffer): Buffer[] {
    const data = this.#pending.byteLength === 0 ? pcm : Buffer.concat([this.#pending, pcm]);
    const frames: Buffer[] = [];
    let offset = 0;
    while (data.byteLength - offset >= this.frameBytes) {
      frames.push(data.subarray(offset, offset + this.frameBytes));
      offset += this.frameBytes;
    }
    // Copy the tail: it may be a view into a caller's buffer that they reuse.
    this.#pending = Buffer.from(data.subarray(offset));
    return frames;
  }

  /** Return the remainder padded with silence to a whole frame, or null when empty. */
  flushPadded(): Buffer | null {
    if (this.#pending.byteLength === 0) return null;
    const frame = Buffer.alloc(this.frameBytes); // zero bytes are silent samples
    this.#pending.copy(frame);
    this.#pending = Buffer.alloc(0);
    return frame;
  }
}
