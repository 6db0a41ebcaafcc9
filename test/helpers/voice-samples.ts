import type { SampleInput } from '../../src/voices/cloning/types.ts';
import { runProcess } from './audio.ts';

/**
 * A WAV recording for cloning tests: espeak-ng speaking `text` with the `variant`
 * (`m3`, `f3`), optionally resampled to `rateHz`, cut to `trimMs`, or, with `silenceMs`,
 * digital silence of that length instead of speech.
 */
export async function speechSample(
  text: string,
  variant: 'm3' | 'f3',
  options: { rateHz?: number; trimMs?: number; silenceMs?: number } = {},
): Promise<SampleInput> {
  let wav: Buffer;
  if (options.silenceMs !== undefined) {
    wav = await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      `anullsrc=r=22050:cl=mono`,
      '-t',
      String(options.silenceMs / 1000),
    ]);
  } else {
    const spoken = await runProcess('espeak-ng', ['--stdout', '-v', `en-us+${variant}`, text]);
    if (spoken.code !== 0) throw new Error(`espeak-ng failed: ${spoken.stderr}`);
    wav = spoken.stdout;
    if (options.rateHz !== undefined || options.trimMs !== undefined) {
      wav = await ffmpeg(
        [
          '-i',
          'pipe:0',
          ...(options.rateHz ? ['-ar', String(options.rateHz)] : []),
          ...(options.trimMs ? ['-t', String(options.trimMs / 1000)] : []),
        ],
        wav,
      );
    }
  }
  return {
    fileName: 'recording.wav',
    contentType: 'audio/wav',
    audio: wav,
    language: 'en-US',
    transcript: text || 'silence',
  };
}

async function ffmpeg(inputArgs: string[], input?: Buffer): Promise<Buffer> {
  const result = await runProcess(
    'ffmpeg',
    ['-v', 'error', ...inputArgs, '-c:a', 'pcm_s16le', '-f', 'wav', 'pipe:1'],
    input,
  );
  if (result.code !== 0) throw new Error(`ffmpeg failed: ${result.stderr}`);
  return result.stdout;
}
