import { beforeAll, describe, expect, it, vi } from 'vitest';
import { FfmpegAacEncoder } from '../../../media/codecs/aac-ffmpeg.ts';
import { AdtsDurationCounter, parseAdtsHeader } from '../../../media/codecs/adts.ts';
import { MediaError } from '../../../media/errors.ts';
import { pcmRms } from '../../../media/pcm.ts';
import { createResampler } from '../../../media/resample.ts';
import { decodeWithFfmpeg, espeakPcm, processExists, splitPcm } from '../../helpers/audio.ts';
import { budget, sleep, waitFor } from '../../helpers/wait.ts';

/** A test that runs ffmpeg over a few seconds of audio on a busy machine. */
const TEST_MS = budget({ extraMs: 30_000 });
vi.setConfig({ testTimeout: TEST_MS });

/** Speech at 44.1 kHz, the AAC encoder's input rate. */
let speech: Buffer;

beforeAll(async () => {
  const source = await espeakPcm('Advanced audio coding, streamed from an ffmpeg subprocess.');
  const resampler = await createResampler(source.sampleRateHz, 44100);
  speech = Buffer.concat([resampler.push(source.data), resampler.flush()]);
});

/** Read the encoder's output until it ends, keeping chunks. */
async function drain(encoder: FfmpegAacEncoder): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of encoder.output) chunks.push(chunk);
  return chunks;
}

/** Waits until `pid` is gone (reaped); the caller asserts on it afterwards. */
async function waitForExit(pid: number): Promise<void> {
  await waitFor(() => !processExists(pid), { what: `process ${pid} to exit` }).catch(() => {});
}

describe('FfmpegAacEncoder', () => {
  it(
    'streams ADTS that ffmpeg decodes at 44.1 kHz mono with the source duration',
    async () => {
      const encoder = new FfmpegAacEncoder();
      const reading = drain(encoder);
      for (const chunk of splitPcm({ data: speech, sampleRateHz: 44100 })) {
        await encoder.write(chunk.data);
      }
      await encoder.end();
      const chunks = await reading;
      const stream = Buffer.concat(chunks);

      const first = parseAdtsHeader(stream, 0);
      expect(first).toMatchObject({ sampleRateHz: 44100, channels: 1 });

      const decoded = await decodeWithFfmpeg(stream, 'aac');
      expect(decoded.stderr).toBe('');
      expect(decoded.sampleRateHz).toBe(44100);
      expect(decoded.channels).toBe(1);
      const sourceMs = (speech.byteLength / 2 / 44100) * 1000;
      const decodedMs = (decoded.pcm.byteLength / 2 / 44100) * 1000;
      expect(Math.abs(decodedMs - sourceMs) / sourceMs).toBeLessThan(0.05);
      expect(pcmRms(decoded.pcm)).toBeGreaterThan(0.02);

      // Counting ADTS frames gives what the decoder played, whatever the chunking.
      const counter = new AdtsDurationCounter();
      for (const chunk of chunks) counter.push(chunk);
      expect(Math.abs(counter.durationMs - decodedMs)).toBeLessThanOrEqual(1);
      const splitCounter = new AdtsDurationCounter();
      for (let offset = 0; offset < stream.byteLength; offset += 5) {
        splitCounter.push(stream.subarray(offset, offset + 5));
      }
      expect(splitCounter.frames).toBe(counter.frames);
    },
    TEST_MS,
  );

  it(
    'emits output before the input ends (low latency)',
    async () => {
      const encoder = new FfmpegAacEncoder();
      const iterator = encoder.output[Symbol.asyncIterator]();
      await encoder.write(speech.subarray(0, 44100)); // 0.5 s
      const first = await iterator.next();
      expect(first.done).toBe(false);
      expect(first.value?.byteLength).toBeGreaterThan(0);
      encoder.abort();
    },
    TEST_MS,
  );

  it('fails with encoder_missing when the ffmpeg path does not exist', async () => {
    const encoder = new FfmpegAacEncoder({ ffmpegPath: '/nonexistent/bin/ffmpeg' });
    const reading = drain(encoder);
    await expect(reading).rejects.toMatchObject({ name: 'MediaError', kind: 'encoder_missing' });
    await expect(encoder.write(speech.subarray(0, 1000))).rejects.toBeInstanceOf(MediaError);
    await expect(encoder.end()).rejects.toMatchObject({ kind: 'encoder_missing' });
  });

  it('fails with encoder_missing for an unusable path value', async () => {
    const encoder = new FfmpegAacEncoder({ ffmpegPath: '' });
    await expect(drain(encoder)).rejects.toMatchObject({ kind: 'encoder_missing' });
  });

  it('fails with encoder_failed when ffmpeg is killed mid-stream', async () => {
    const encoder = new FfmpegAacEncoder();
    const reading = drain(encoder);
    await encoder.write(speech.subarray(0, 88200));
    process.kill(encoder.pid!, 'SIGKILL');
    await expect(reading).rejects.toMatchObject({ kind: 'encoder_failed' });
    await expect(encoder.write(speech)).rejects.toMatchObject({ kind: 'encoder_failed' });
    await expect(encoder.end()).rejects.toMatchObject({ kind: 'encoder_failed' });
  });

  it('kills the subprocess on abort and leaves no process behind', async () => {
    const controller = new AbortController();
    const encoder = new FfmpegAacEncoder({ signal: controller.signal });
    const reading = drain(encoder);
    await encoder.write(speech.subarray(0, 88200));
    const pid = encoder.pid!;
    expect(processExists(pid)).toBe(true);
    controller.abort();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    await encoder.exited;
    await waitForExit(pid);
    expect(processExists(pid)).toBe(false);
  });

  it('does not spawn at all when the signal is already aborted', async () => {
    const encoder = new FfmpegAacEncoder({ signal: AbortSignal.abort() });
    expect(encoder.pid).toBeUndefined();
    await expect(drain(encoder)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it(
    'kills the subprocess when the consumer stops reading',
    async () => {
      const encoder = new FfmpegAacEncoder();
      const writing = encoder.write(speech);
      for await (const _chunk of encoder.output) break;
      await writing.catch(() => {});
      await encoder.exited;
      await waitForExit(encoder.pid!);
      expect(processExists(encoder.pid!)).toBe(false);
    },
    TEST_MS,
  );

  it(
    'applies backpressure: a consumer that does not read stalls write(), memory stays bounded',
    async () => {
      const encoder = new FfmpegAacEncoder({ highWaterMarkBytes: 16 * 1024 });
      // 60 s of audio, written as fast as write() allows, with nobody reading output.
      const second = speech.subarray(0, 88200);
      let written = 0;
      const writing = (async () => {
        for (let i = 0; i < 60; i++) {
          await encoder.write(second);
          written++;
        }
      })();
      // Nobody reads for a while: the stall is the subject. A slow machine writes less in
      // that time, never more.
      await sleep(1500);
      expect(written).toBeLessThan(20); // about 8 s fit in the pipes and the queue
      expect(encoder.output.bufferedBytes).toBeLessThan(16 * 1024 + 64 * 1024);
      // Reading releases it.
      const reading = drain(encoder);
      await writing;
      await encoder.end();
      const decodedBytes = Buffer.concat(await reading).byteLength;
      expect(decodedBytes).toBeGreaterThan(0);
    },
    TEST_MS,
  );
});
