import { OggOpusDecoder } from 'ogg-opus-decoder';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MediaError } from '../../../media/errors.ts';
import { getOutputFormatInfo, OUTPUT_FORMATS, type OutputFormat } from '../../../media/formats.ts';
import { type PcmChunk, pcmRms } from '../../../media/pcm.ts';
import {
  AudioTranscoder,
  encodeAudio,
  type TranscoderFactory,
  type TranscoderOptions,
} from '../../../media/transcode.ts';
import { passPcmThroughInThread } from '../../../media/transcoder-placement.ts';
import { TranscodePool } from '../../../media/worker/transcode-pool.ts';
import {
  asyncChunks,
  collectChunks,
  decodeWithFfmpeg,
  espeakPcm,
  floatRms,
  runProcess,
  splitPcm,
} from '../../helpers/audio.ts';
import { budget, sleep, waitFor } from '../../helpers/wait.ts';

/**
 * The signal of an encode: a deadline only a stuck encoder reaches (ffmpeg and the worker
 * threads share two busy cores with everything else).
 */
const ENCODE_DEADLINE_MS = 60_000;
/** A test that encodes a few seconds of audio, with the deadline above. */
const TEST_MS = budget({ extraMs: ENCODE_DEADLINE_MS });
vi.setConfig({ testTimeout: TEST_MS });

const pool = new TranscodePool({ threads: 2 });
afterAll(() => pool.close());
/** Where transcoding runs: every behaviour holds in this thread and on a worker thread. */
const MODES: [string, TranscoderFactory | undefined][] = [
  ['in this thread', undefined],
  ['on a worker thread', (format, options) => pool.create(format, options)],
  [
    'placed at the first chunk (the service: PCM at its rate here, the rest on a worker)',
    passPcmThroughInThread((format, options) => pool.create(format, options)),
  ],
];

/** Two synthesized segments at espeak-ng's 22,050 Hz, as a provider would stream them. */
let segments: PcmChunk[];
let sourceMs: number;

beforeAll(async () => {
  segments = [
    await espeakPcm('The first sentence of this request.'),
    await espeakPcm('A second segment joins the same stream.'),
  ];
  sourceMs = segments.reduce((sum, s) => sum + (s.data.byteLength / 2 / s.sampleRateHz) * 1000, 0);
});

function sourceChunks(): PcmChunk[] {
  return segments.flatMap((segment, index) => splitPcm(segment, index + 1));
}

/** ffmpeg children of this test process (the encoders' subprocesses). */
async function ffmpegChildren(): Promise<number[]> {
  const ps = await runProcess('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]);
  return ps.stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line.includes('ffmpeg'))
    .map((line) => Number.parseInt(line, 10));
}

async function expectNoFfmpegLeft(): Promise<void> {
  // Killed processes take a moment to be reaped; on a busy machine, more than a moment.
  await waitFor(async () => (await ffmpegChildren()).length === 0, {
    what: 'ffmpeg children to exit',
  }).catch(() => {});
  expect(await ffmpegChildren()).toEqual([]);
}

describe.each(MODES)('encodeAudio %s', (_mode, transcoders) => {
  const encode = (
    source: AsyncIterable<PcmChunk>,
    format: OutputFormat,
    signal: AbortSignal,
    options: Omit<TranscoderOptions, 'signal'> = {},
  ) => encodeAudio(source, format, signal, { ...options, ...(transcoders ? { transcoders } : {}) });

  it.each(OUTPUT_FORMATS)(
    'encodes speech to %s: right rate, mono, source duration, not silent',
    async (format) => {
      const info = getOutputFormatInfo(format);
      const chunks = await collectChunks(
        encode(asyncChunks(sourceChunks()), format, AbortSignal.timeout(ENCODE_DEADLINE_MS)),
      );
      expect(chunks.length).toBeGreaterThan(1);
      const encoded = Buffer.concat(chunks);

      let decodedMs: number;
      let rms: number;
      if (info.codec === 'pcm') {
        decodedMs = (encoded.byteLength / 2 / info.sampleRateHz) * 1000;
        rms = pcmRms(encoded);
      } else {
        const decoded = await decodeWithFfmpeg(encoded);
        expect(decoded.stderr).toBe('');
        expect(decoded.sampleRateHz).toBe(info.sampleRateHz);
        expect(decoded.channels).toBe(1);
        decodedMs = (decoded.pcm.byteLength / 2 / decoded.sampleRateHz) * 1000;
        rms = pcmRms(decoded.pcm);
      }
      expect(Math.abs(decodedMs - sourceMs) / sourceMs).toBeLessThan(0.05);
      expect(rms).toBeGreaterThan(0.02);

      const counter = info.createDurationCounter();
      for (const chunk of chunks) counter.push(chunk);
      expect(Math.abs(counter.durationMs - decodedMs) / decodedMs).toBeLessThan(0.05);
    },
    TEST_MS,
  );

  it('decodes Opus output with ogg-opus-decoder too', async () => {
    const encoded = Buffer.concat(
      await collectChunks(
        encode(
          asyncChunks(sourceChunks()),
          'opus_48000_64',
          AbortSignal.timeout(ENCODE_DEADLINE_MS),
        ),
      ),
    );
    const decoder = new OggOpusDecoder();
    await decoder.ready;
    const decoded = await decoder.decodeFile(new Uint8Array(encoded));
    decoder.free();
    expect(decoded.errors).toEqual([]);
    expect(Math.abs(decoded.samplesDecoded / 48 - sourceMs) / sourceMs).toBeLessThan(0.05);
    expect(floatRms(decoded.channelData[0]!)).toBeGreaterThan(0.02);
  });

  it.each(OUTPUT_FORMATS)(
    'yields %s bytes before the source ends',
    async (format) => {
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = segments[0]!;
      async function* source(): AsyncIterable<PcmChunk> {
        yield first;
        await gate; // the provider is still synthesizing
        yield segments[1]!;
      }
      const iterator = encode(source(), format, AbortSignal.timeout(ENCODE_DEADLINE_MS))[
        Symbol.asyncIterator
      ]();
      const early = await iterator.next();
      expect(early.done).toBe(false);
      expect(early.value!.byteLength).toBeGreaterThan(0);
      release();
      while (!(await iterator.next()).done) {}
    },
    TEST_MS,
  );

  it.each(OUTPUT_FORMATS)(
    'stops on abort with the abort reason (%s)',
    async (format) => {
      const controller = new AbortController();
      async function* endless(): AsyncIterable<PcmChunk> {
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          yield segments[0]!;
        }
      }
      const reading = (async () => {
        let received = 0;
        for await (const chunk of encode(endless(), format, controller.signal)) {
          received += chunk.byteLength;
          if (received > 0) controller.abort(new Error('client went away'));
        }
      })();
      await expect(reading).rejects.toThrow('client went away');
      await expectNoFfmpegLeft();
    },
    TEST_MS,
  );

  it('rethrows a source error as is, and kills ffmpeg', async () => {
    class ProviderError extends Error {}
    async function* failing(): AsyncIterable<PcmChunk> {
      yield segments[0]!;
      throw new ProviderError('upstream closed');
    }
    const reading = collectChunks(
      encode(failing(), 'aac_44100_128', AbortSignal.timeout(ENCODE_DEADLINE_MS)),
    );
    await expect(reading).rejects.toBeInstanceOf(ProviderError);
    await expectNoFfmpegLeft();
  });

  it('reports a missing ffmpeg as a MediaError', async () => {
    const reading = collectChunks(
      encode(
        asyncChunks(sourceChunks()),
        'aac_44100_128',
        AbortSignal.timeout(ENCODE_DEADLINE_MS),
        {
          ffmpegPath: '/nonexistent/ffmpeg',
        },
      ),
    );
    await expect(reading).rejects.toMatchObject({ kind: 'encoder_missing' });
    await expect(reading).rejects.toBeInstanceOf(MediaError);
  });

  it(
    'stops the encoder and the source when the consumer breaks out',
    async () => {
      let sourceClosed = false;
      async function* source(): AsyncIterable<PcmChunk> {
        try {
          for (;;) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            yield segments[0]!;
          }
        } finally {
          sourceClosed = true;
        }
      }
      for await (const _bytes of encode(
        source(),
        'aac_44100_128',
        AbortSignal.timeout(ENCODE_DEADLINE_MS),
      )) {
        break;
      }
      await expectNoFfmpegLeft();
      await waitFor(() => sourceClosed, { what: 'the source to be closed' }).catch(() => {});
      expect(sourceClosed).toBe(true);
    },
    TEST_MS,
  );

  it('pulls the source only as fast as the consumer reads (bounded buffering)', async () => {
    let pulled = 0;
    const tenthOfASecond = { data: Buffer.alloc(4800 * 2, 1), sampleRateHz: 48000 };
    async function* endless(): AsyncIterable<PcmChunk> {
      for (;;) {
        pulled++;
        yield tenthOfASecond;
      }
    }
    const iterator = encode(endless(), 'pcm_48000', AbortSignal.timeout(ENCODE_DEADLINE_MS), {
      highWaterMarkBytes: 64 * 1024,
    })[Symbol.asyncIterator]();
    await iterator.next();
    await sleep(200); // a stalled client: the pause is the subject; a slow machine pulls less
    // 64 KiB is about 0.7 s of 48 kHz PCM: the source must not run ahead much further.
    expect(pulled).toBeLessThan(12);
    await iterator.return?.();
  });
});

describe('AudioTranscoder', () => {
  it('encodes a 22,050 Hz source to Opus from 24 kHz input (half the work), 48 kHz out', async () => {
    const transcoder = new AudioTranscoder('opus_48000_64');
    const reading = collectChunks(transcoder.output);
    await transcoder.write(segments[0]!);
    await transcoder.end();
    const stream = Buffer.concat(await reading);
    const head = stream.subarray(stream.indexOf('OpusHead'));
    expect(head.readUInt32LE(12)).toBe(24000);
    const decoded = await decodeWithFfmpeg(stream);
    expect(decoded.sampleRateHz).toBe(48000);
    const expectedMs = (segments[0]!.data.byteLength / 2 / 22050) * 1000;
    expect(Math.abs(decoded.pcm.byteLength / 2 / 48 - expectedMs)).toBeLessThan(2);
  });

  it('keeps one stream when the input rate changes between segments', async () => {
    const transcoder = new AudioTranscoder('opus_48000_64');
    const reading = collectChunks(transcoder.output);
    const at24k = { data: Buffer.alloc(24000 * 2), sampleRateHz: 24000 }; // 1 s
    for (let i = 0; i < at24k.data.byteLength / 2; i++) {
      at24k.data.writeInt16LE(Math.round(8000 * Math.sin(i / 5)), i * 2);
    }
    await transcoder.write(segments[0]!);
    await transcoder.write(at24k);
    await transcoder.end();
    const decoded = await decodeWithFfmpeg(Buffer.concat(await reading));
    expect(decoded.stderr).toBe('');
    const expectedMs = (segments[0]!.data.byteLength / 2 / 22050) * 1000 + 1000;
    const decodedMs = decoded.pcm.byteLength / 2 / 48;
    expect(Math.abs(decodedMs - expectedMs)).toBeLessThan(2);
  });
});
