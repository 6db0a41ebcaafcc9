import { spawn } from 'node:child_process';
import { createResampler } from '../../media/resample.ts';
import { parsePcmWav } from '../../media/wav.ts';

const cache = new Map<string, Promise<Buffer>>();

/**
 * Real speech for a fake vendor: `text` spoken by espeak-ng (22,050 Hz) at `speed` times
 * its normal rate, resampled to `sampleRateHz`, as s16le mono PCM. Results are cached per
 * text, rate and speed, since tests repeat the same sentences.
 */
export function speechPcm(text: string, sampleRateHz: number, speed = 1): Promise<Buffer> {
  const key = `${sampleRateHz}\u0000${speed}\u0000${text}`;
  let pcm = cache.get(key);
  if (pcm === undefined) {
    pcm = synthesize(text, sampleRateHz, speed);
    cache.set(key, pcm);
    pcm.catch(() => cache.delete(key));
  }
  return pcm;
}

async function synthesize(text: string, sampleRateHz: number, speed: number): Promise<Buffer> {
  const wav = await espeak(text, Math.round(175 * speed));
  const speech = parsePcmWav(wav);
  const resampler = await createResampler(speech.sampleRateHz, sampleRateHz);
  try {
    return Buffer.concat([resampler.push(speech.data), resampler.flush()]);
  } finally {
    resampler.destroy();
  }
}

/** espeak-ng reading `text` from stdin (never argv, so a leading dash is text). */
function espeak(text: string, wordsPerMinute: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const args = ['--stdout', '--stdin', '-v', 'en-us', '-s', String(wordsPerMinute)];
    const child = spawn('espeak-ng', args, {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (bytes: Buffer) => out.push(bytes));
    child.stderr.on('data', (bytes: Buffer) => {
      stderr += bytes.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`espeak-ng exited with ${code}: ${stderr}`));
    });
    child.stdin.end(text.replaceAll('\0', ' '), 'utf8');
  });
}
