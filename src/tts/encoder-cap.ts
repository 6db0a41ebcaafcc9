import { getOutputFormatInfo } from '../../media/formats.ts';
import type { Transcoder, TranscoderFactory } from '../../media/transcode.ts';
import { ApiError } from '../errors.ts';

/**
 * Caps the ffmpeg encoders (AAC) running at once in this process: each is a subprocess of
 * its own (about 20 MB and a process start), so an unbounded number of AAC requests could
 * exhaust the machine. Past the cap a new AAC request is refused at once with
 * `provider_unavailable` (retryable); other formats are encoded in-process and not counted.
 * A slot frees when the transcoder's output has been read to its end or it is aborted.
 *
 * @example
 * const transcoders = capFfmpegEncoders(inThreadTranscoder, 16);
 */
export function capFfmpegEncoders(
  factory: TranscoderFactory,
  maxEncoders: number,
): TranscoderFactory & { readonly running: () => number } {
  let running = 0;
  const capped: TranscoderFactory = (format, options) => {
    if (getOutputFormatInfo(format).codec !== 'aac') return factory(format, options);
    if (running >= maxEncoders) {
      throw new ApiError(
        'provider_unavailable',
        `This server runs ${maxEncoders} AAC encoders at once; retry shortly.`,
        { retryAfterSeconds: 1 },
      );
    }
    const inner = factory(format, options);
    running += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      running -= 1;
    };
    const output = (async function* () {
      try {
        yield* inner.output;
      } finally {
        release();
      }
    })();
    const transcoder: Transcoder = {
      format: inner.format,
      output,
      write: (chunk) => inner.write(chunk),
      end: () => inner.end(),
      abort: (reason) => {
        release();
        inner.abort(reason);
      },
    };
    return transcoder;
  };
  return Object.assign(capped, { running: () => running });
}
