/**
 * Why a media stage failed. Callers map these to API errors; they never read `message`.
 *
 * - `encoder_missing`: the encoder program or library is not installed (ffmpeg not found).
 * - `encoder_failed`: the encoder started but failed or died before the stream ended.
 * - `resampler_failed`: the resampler rejected its configuration or input.
 * - `invalid_audio`: input that cannot be audio of the expected shape (a malformed WAV).
 */
export type MediaErrorKind =
  | 'encoder_missing'
  | 'encoder_failed'
  | 'resampler_failed'
  | 'invalid_audio';

/**
 * The one error type thrown by `media/`. Match on `kind`, never on the message.
 *
 * @example
 * try {
 *   for await (const bytes of encodeAudio(source, 'aac_44100_128', signal)) send(bytes);
 * } catch (error) {
 *   if (error instanceof MediaError && error.kind === 'encoder_missing') reportUnavailable();
 *   else throw error;
 * }
 */
export class MediaError extends Error {
  override readonly name = 'MediaError';
  readonly kind: MediaErrorKind;

  constructor(kind: MediaErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}
