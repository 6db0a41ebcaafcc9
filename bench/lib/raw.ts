import { spawn } from 'node:child_process';
import { nowMs } from './stats.ts';

/** Timings of one subprocess run. */
export interface RunTiming {
  /** From spawn to the first byte on stdout. */
  firstByteMs: number;
  /** From spawn to the end of stdout. */
  wallMs: number;
  /** Bytes written to stdout. */
  outputBytes: number;
}

const WAV_HEADER_BYTES = 44;
export const ESPEAK_RATE_HZ = 22050;

/** Runs a command, feeds `input` on stdin, and times its stdout. */
function timeCommand(command: string, args: string[], input: Buffer | string): Promise<RunTiming> {
  return new Promise((resolve, reject) => {
    const started = nowMs();
    let firstByteMs = -1;
    let outputBytes = 0;
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    child.on('error', reject);
    child.stdout.on('data', (chunk: Buffer) => {
      if (firstByteMs < 0) firstByteMs = nowMs() - started;
      outputBytes += chunk.byteLength;
    });
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${command} exited with ${code}`));
      else resolve({ firstByteMs, wallMs: nowMs() - started, outputBytes });
    });
    child.stdin.end(input);
  });
}

/** `espeak-ng --stdout` alone: the native engine's physical limit. */
export async function rawEspeak(
  text: string,
  voice: string,
): Promise<RunTiming & { audioS: number }> {
  const timing = await timeCommand(
    'espeak-ng',
    ['--stdout', '--stdin', '-b', '1', '-v', voice],
    text,
  );
  return { ...timing, audioS: (timing.outputBytes - WAV_HEADER_BYTES) / 2 / ESPEAK_RATE_HZ };
}

/** The PCM (22,050 Hz s16le mono) espeak-ng produces for `text`. */
export function espeakPcm(text: string, voice: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const child = spawn('espeak-ng', ['--stdout', '--stdin', '-b', '1', '-v', voice], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.on('error', reject);
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', () => resolve(Buffer.concat(chunks).subarray(WAV_HEADER_BYTES)));
    child.stdin.end(text);
  });
}

export type RawEncoder = 'opus' | 'aac';

/**
 * ffmpeg encoding the engine's PCM: Opus with libopus at 64 kbps (same complexity and
 * frame size as the pipeline), AAC with ffmpeg's encoder at 128 kbps.
 */
export function rawFfmpegEncode(
  encoder: RawEncoder,
  pcm: Buffer,
  opusComplexity: number,
): Promise<RunTiming> {
  const input = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    's16le',
    '-ar',
    String(ESPEAK_RATE_HZ),
    '-ac',
    '1',
    '-i',
    'pipe:0',
  ];
  const output =
    encoder === 'opus'
      ? [
          '-c:a',
          'libopus',
          '-b:a',
          '64k',
          '-compression_level',
          String(opusComplexity),
          '-frame_duration',
          '20',
          '-ar',
          '48000',
          '-f',
          'ogg',
          'pipe:1',
        ]
      : ['-c:a', 'aac', '-b:a', '128k', '-ar', '44100', '-f', 'adts', 'pipe:1'];
  return timeCommand('ffmpeg', [...input, ...output], pcm);
}

/** First line of a command's version output, for the results file. */
export function commandVersion(command: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    child.on('error', () => resolve('missing'));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('close', () => resolve(out.split('\n')[0]?.trim() ?? ''));
  });
}
