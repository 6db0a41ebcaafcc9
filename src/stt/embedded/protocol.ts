/**
 * The sidecar's framing (documented in full in sidecar.py): every message is
 * `u32 BE header length, u32 BE payload length, JSON header, payload bytes`.
 */
import { z } from 'zod';

/** Largest header either side accepts; payloads are bounded by the sidecar (10 min of audio). */
export const MAX_HEADER_BYTES = 64 * 1024;
const MAX_PAYLOAD_BYTES = 16_000 * 2 * 600;

/** One frame: its JSON header and its payload bytes. */
export interface Frame {
  header: unknown;
  payload: Buffer;
}

/** Encodes one frame. */
export function encodeFrame(
  header: Record<string, unknown>,
  payload: Buffer = Buffer.alloc(0),
): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32BE(json.byteLength, 0);
  prefix.writeUInt32BE(payload.byteLength, 4);
  return Buffer.concat([prefix, json, payload]);
}

/** Splits a byte stream into frames; throws when the stream is not in the protocol. */
export class FrameDecoder {
  #buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.#buffer = this.#buffer.byteLength === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const frames: Frame[] = [];
    for (;;) {
      if (this.#buffer.byteLength < 8) break;
      const headerBytes = this.#buffer.readUInt32BE(0);
      const payloadBytes = this.#buffer.readUInt32BE(4);
      if (headerBytes > MAX_HEADER_BYTES || payloadBytes > MAX_PAYLOAD_BYTES) {
        throw new Error(`sidecar frame too large (header ${headerBytes}, payload ${payloadBytes})`);
      }
      const total = 8 + headerBytes + payloadBytes;
      if (this.#buffer.byteLength < total) break;
      const header: unknown = JSON.parse(
        this.#buffer.subarray(8, 8 + headerBytes).toString('utf8'),
      );
      frames.push({ header, payload: this.#buffer.subarray(8 + headerBytes, total) });
      this.#buffer = this.#buffer.subarray(total);
    }
    return frames;
  }
}

/** Messages the sidecar sends. */
export const sidecarMessageSchema = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('ready'),
    model: z.string(),
    load_ms: z.number(),
    multilingual: z.boolean(),
  }),
  z.object({
    op: z.literal('result'),
    id: z.number(),
    text: z.string(),
    language: z.string().nullable(),
    language_probability: z.number(),
    confidence: z.number().nullable(),
    duration_ms: z.number(),
    elapsed_ms: z.number(),
    window_ms: z.number(),
    window_retried: z.boolean(),
  }),
  z.object({
    op: z.literal('error'),
    id: z.number().nullable(),
    kind: z.enum(['bad_request', 'internal']),
    message: z.string(),
  }),
]);
export type SidecarMessage = z.infer<typeof sidecarMessageSchema>;
