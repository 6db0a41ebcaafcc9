/**
 * Cuts a byte stream of s16le PCM into whole samples. Network reads can end between the
 * two bytes of a sample; the odd byte is held back and prepended to the next read.
 */
export class PcmAligner {
  #carry: Buffer | undefined;

  /** Bytes held back (0 or 1). */
  get pendingBytes(): number {
    return this.#carry?.byteLength ?? 0;
  }

  /** The whole samples available after `bytes` arrived (possibly empty). */
  push(bytes: Buffer): Buffer {
    const data = this.#carry === undefined ? bytes : Buffer.concat([this.#carry, bytes]);
    const even = data.byteLength - (data.byteLength % 2);
    this.#carry = even === data.byteLength ? undefined : Buffer.from(data.subarray(even));
    return data.subarray(0, even);
  }
}
