import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultEngineHelperPath } from '../../../../src/tts/providers/native/index.ts';

// The engine's own framing, read straight from its stdout as the service's child stdio
// gives it (awp-espeak-engine.c): how an utterance's audio and marks are laid out in frames.

const helperPath = defaultEngineHelperPath();
if (helperPath === undefined) {
  throw new Error('the long-lived engine is not built: run bash scripts/build-engine.sh');
}
const VOICE = 'en-us+f3';
const SENTENCE = 'Your order has shipped and will arrive on Thursday afternoon.';
/** After its first audio the engine writes one audio frame of this much PCM at a time. */
const FULL_AUDIO_PAYLOAD = 32 * 1024;
/** PIPE_BUF on Linux: what one engine buffer's frame stayed within. */
const PIPE_BUF = 4096;

interface Frame {
  readonly type: string;
  readonly id: number;
  readonly payload: Buffer;
}

const engines: ReturnType<typeof spawn>[] = [];

afterEach(() => {
  for (const engine of engines.splice(0)) engine.kill('SIGKILL');
});

function request(id: number, text: string, options: { rateHz?: number; marks?: boolean }): Buffer {
  const voice = Buffer.from(VOICE, 'latin1');
  const head = Buffer.alloc(9);
  head.writeUInt16LE(175, 0);
  head.writeUInt8(50, 2);
  head.writeUInt8(voice.length, 3);
  head.writeUInt32LE(options.rateHz ?? 0, 4);
  head.writeUInt8(options.marks ? 1 : 0, 8);
  const payload = Buffer.concat([head, voice, Buffer.from(text, 'utf8')]);
  const header = Buffer.alloc(9);
  header.write('S', 0, 'latin1');
  header.writeUInt32LE(id, 1);
  header.writeUInt32LE(payload.length, 5);
  return Buffer.concat([header, payload]);
}

/** Starts the engine and returns a reader of its frames, in order. */
function startEngine(): () => Promise<Frame> {
  const engine = spawn(helperPath as string, [], { stdio: ['pipe', 'pipe', 'ignore'] });
  engines.push(engine);
  let pending = Buffer.alloc(0);
  const frames: Frame[] = [];
  let wake: (() => void) | undefined;
  engine.stdout?.on('data', (bytes: Buffer) => {
    pending = Buffer.concat([pending, bytes]);
    while (pending.length >= 9 && pending.length >= 9 + pending.readUInt32LE(5)) {
      const length = pending.readUInt32LE(5);
      frames.push({
        type: String.fromCharCode(pending[0]!),
        id: pending.readUInt32LE(1),
        payload: Buffer.from(pending.subarray(9, 9 + length)),
      });
      pending = pending.subarray(9 + length);
    }
    wake?.();
  });
  return async () => {
    while (frames.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return frames.shift() as Frame;
  };
}

async function utterance(
  text: string,
  options: { rateHz?: number; marks?: boolean } = {},
): Promise<Frame[]> {
  const next = startEngine();
  expect((await next()).type).toBe('R');
  const engine = engines.at(-1);
  engine?.stdin?.write(request(7, text, options));
  const frames: Frame[] = [];
  for (;;) {
    const frame = await next();
    expect(frame.id).toBe(7);
    frames.push(frame);
    if (frame.type === 'E' || frame.type === 'X') break;
  }
  engine?.stdin?.end();
  if (engine?.exitCode === null) await once(engine, 'exit');
  return frames;
}

/** What `espeak-ng --stdout` writes for the same text, WAV header cut. */
function cliPcm(text: string): Buffer {
  const result = spawnSync('espeak-ng', ['--stdout', '--stdin', '-b', '1', '-v', VOICE], {
    input: text,
  });
  return result.stdout.subarray(44);
}

describe('awp-espeak-engine framing', () => {
  it('sends the first engine buffer at once, then the audio in 32 KiB writes, the bytes espeak-ng says', async () => {
    const frames = await utterance(SENTENCE);
    const audio = frames.filter((frame) => frame.type === 'A');
    const pcm = Buffer.concat(audio.map((frame) => frame.payload));
    expect(pcm.equals(cliPcm(SENTENCE))).toBe(true);
    expect(frames.at(-1)?.type).toBe('E');
    expect(frames.filter((frame) => frame.type !== 'A')).toHaveLength(1);
    // The first buffer (~60 ms) goes out alone; every write after it is one audio frame
    // filling 32 KiB, the last one whatever is left.
    const [first, ...rest] = audio.map((frame) => frame.payload.length);
    expect(first).toBeLessThan(PIPE_BUF);
    const full = Math.floor((pcm.length - (first as number)) / FULL_AUDIO_PAYLOAD);
    expect(rest).toEqual([
      ...Array<number>(full).fill(FULL_AUDIO_PAYLOAD),
      pcm.length - (first as number) - full * FULL_AUDIO_PAYLOAD,
    ]);
  });

  it('keeps each mark ahead of the audio it falls in when frames are gathered, at a resampled rate', async () => {
    const frames = await utterance(SENTENCE, { rateHz: 24_000, marks: true });
    const words = frames.filter((frame) => frame.type === 'M' && frame.payload[0] === 0x77);
    expect(words).toHaveLength(SENTENCE.split(' ').length);
    let audioSeconds = 0;
    for (const frame of frames) {
      if (frame.type === 'A') audioSeconds += frame.payload.length / 2 / 24_000;
      // A mark is sent before the audio it falls in, never after it.
      if (frame.type === 'M') {
        expect(frame.payload.readUInt32LE(1) / 22_050).toBeGreaterThanOrEqual(audioSeconds - 0.01);
      }
    }
    const audio = frames.filter((frame) => frame.type === 'A');
    expect(Math.max(...audio.map((frame) => frame.payload.length))).toBeGreaterThan(PIPE_BUF);
  });
});
