import { OggOpusDecoder } from 'ogg-opus-decoder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OGG_FLAG_BOS, OGG_FLAG_EOS } from '../../../media/codecs/ogg.ts';
import { OggOpusDurationCounter } from '../../../media/codecs/ogg-opus-duration.ts';
import { OggPageReader, oggPagePackets } from '../../../media/codecs/ogg-reader.ts';
import {
  createOggOpusEncoder,
  LIBOPUS_LOOKAHEAD_SAMPLES,
  OggOpusEncoder,
  opusInputRateFor,
} from '../../../media/codecs/opus-ogg.ts';
import { MediaError } from '../../../media/errors.ts';
import { pcmRms, pcmToFloat32 } from '../../../media/pcm.ts';
import { createResampler } from '../../../media/resample.ts';
import {
  decodeWithFfmpeg,
  espeakPcm,
  ffprobeAudio,
  floatRms,
  runProcess,
  splitPcm,
} from '../../helpers/audio.ts';

let decoder: OggOpusDecoder;
/** Two sentences of speech at 48 kHz, as two synthesis segments. */
let segments: Buffer[];
let inputSamples: number;

beforeAll(async () => {
  decoder = new OggOpusDecoder();
  await decoder.ready;
  const resampler = await createResampler(22050, 48000);
  segments = [];
  for (const text of ['Hello, this is the first segment.', 'And here comes the second one.']) {
    const speech = await espeakPcm(text);
    segments.push(Buffer.concat([resampler.push(speech.data), resampler.flush()]));
  }
  inputSamples = segments.reduce((sum, s) => sum + s.byteLength / 2, 0);
});

afterAll(() => decoder.free());

/** Encode the segments in varied chunk sizes, keeping every returned chunk. */
function encodeSegments(encoder = new OggOpusEncoder(), maxChunkSamples = 6000): Buffer[] {
  const chunks: Buffer[] = [];
  for (const segment of segments) {
    for (const chunk of splitPcm({ data: segment, sampleRateHz: 48000 }, 3, maxChunkSamples)) {
      const out = encoder.push(chunk.data);
      if (out.byteLength > 0) chunks.push(out);
    }
  }
  chunks.push(encoder.end());
  return chunks;
}

/** The shift (in samples) of `output` against `input` that correlates best, within ±400. */
function bestLag(input: Float32Array, output: Float32Array): number {
  let bestShift = 0;
  let best = Number.NEGATIVE_INFINITY;
  for (let lag = -400; lag <= 400; lag++) {
    let sum = 0;
    for (let i = 4800; i < 4800 + 48000; i++) sum += input[i]! * (output[i + lag] ?? 0);
    if (sum > best) {
      best = sum;
      bestShift = lag;
    }
  }
  return bestShift;
}

async function decodeWithWasm(bytes: Buffer) {
  await decoder.reset();
  return decoder.decodeFile(new Uint8Array(bytes));
}

describe('OggOpusEncoder', () => {
  it('makes one Ogg Opus stream that ffmpeg decodes at 48 kHz mono, full length, not silent', async () => {
    const stream = Buffer.concat(encodeSegments());
    const probe = await ffprobeAudio(stream);
    expect(probe).toMatchObject({ codecName: 'opus', sampleRateHz: 48000, channels: 1 });
    expect(probe.formatName).toBe('ogg');

    const decoded = await decodeWithFfmpeg(stream);
    // A CRC mismatch or a bad page would print a warning.
    expect(decoded.stderr).toBe('');
    expect(decoded.channels).toBe(1);
    const decodedSamples = decoded.pcm.byteLength / 2;
    expect(Math.abs(decodedSamples - inputSamples) / inputSamples).toBeLessThan(0.05);
    expect(pcmRms(decoded.pcm)).toBeGreaterThan(0.02);
  });

  it('decodes with ogg-opus-decoder (WASM) to the exact input length, aligned by the pre-skip', async () => {
    const decoded = await decodeWithWasm(Buffer.concat(encodeSegments()));
    expect(decoded.errors).toEqual([]);
    expect(decoded.sampleRate).toBe(48000);
    expect(decoded.channelData).toHaveLength(1);
    expect(decoded.samplesDecoded).toBe(inputSamples);
    const output = decoded.channelData[0]!;
    expect(floatRms(output)).toBeGreaterThan(0.02);

    // If the pre-skip were wrong the decoded audio would be shifted against the input.
    const input = pcmToFloat32(Buffer.concat(segments));
    expect(Math.abs(bestLag(input, output))).toBeLessThanOrEqual(2);
  });

  it('stays decodable when cut after any delivered chunk', async () => {
    const chunks = encodeSegments(new OggOpusEncoder(), 16000);
    expect(chunks.length).toBeGreaterThan(10);
    const prefixes = chunks.map((_, index) => Buffer.concat(chunks.slice(0, index + 1)));

    let previousSamples = 0;
    for (const prefix of prefixes) {
      const wasm = await decodeWithWasm(prefix);
      expect(wasm.errors).toEqual([]);
      expect(wasm.samplesDecoded).toBeGreaterThan(previousSamples);
      previousSamples = wasm.samplesDecoded;
    }

    // ffmpeg start-up dominates, so run a few decoders at a time.
    const decodeAll = async (batch: Buffer[]) =>
      Promise.all(
        batch.map((prefix) =>
          runProcess(
            'ffmpeg',
            ['-v', 'warning', '-f', 'ogg', '-i', 'pipe:0', '-f', 's16le', 'pipe:1'],
            prefix,
          ),
        ),
      );
    for (let start = 0; start < prefixes.length; start += 4) {
      for (const ffmpeg of await decodeAll(prefixes.slice(start, start + 4))) {
        expect(ffmpeg.code).toBe(0);
        expect(ffmpeg.stderr).toBe('');
        expect(ffmpeg.stdout.byteLength).toBeGreaterThan(0);
      }
    }
  }, 120_000);

  it('writes valid pages: BOS head, tags, numbered pages, rising granules, EOS last', () => {
    const pages = new OggPageReader().push(Buffer.concat(encodeSegments()));
    expect(pages.every((page) => page.crcValid)).toBe(true);
    expect(pages.map((page) => page.sequence)).toEqual(pages.map((_, index) => index));
    expect(new Set(pages.map((page) => page.serialNumber)).size).toBe(1);
    expect(pages.map((page) => page.headerType & OGG_FLAG_BOS)).toEqual(
      pages.map((_, index) => (index === 0 ? OGG_FLAG_BOS : 0)),
    );
    expect(pages.map((page) => page.headerType & OGG_FLAG_EOS)).toEqual(
      pages.map((_, index) => (index === pages.length - 1 ? OGG_FLAG_EOS : 0)),
    );

    const head = oggPagePackets(pages[0]!)[0]!;
    expect(head.toString('ascii', 0, 8)).toBe('OpusHead');
    expect(head.readUInt8(9)).toBe(1); // channels
    expect(head.readUInt16LE(10)).toBe(LIBOPUS_LOOKAHEAD_SAMPLES);
    expect(oggPagePackets(pages[1]!)[0]!.toString('ascii', 0, 8)).toBe('OpusTags');

    const granules = pages.slice(2).map((page) => page.granulePosition);
    for (let i = 1; i < granules.length; i++) {
      expect(granules[i]!).toBeGreaterThanOrEqual(granules[i - 1]!);
    }
    expect(granules.at(-1)).toBe(BigInt(inputSamples + LIBOPUS_LOOKAHEAD_SAMPLES));
  });

  it('reports the exact duration through OggOpusDurationCounter', () => {
    const counter = new OggOpusDurationCounter();
    // Feed in odd splits that cut pages in half.
    const stream = Buffer.concat(encodeSegments());
    for (let offset = 0; offset < stream.byteLength; offset += 333) {
      counter.push(stream.subarray(offset, offset + 333));
    }
    expect(counter.durationMs).toBe(Math.round((inputSamples * 1000) / 48000));
  });

  it('splits a long push into pages of at most maxFramesPerPage frames', async () => {
    const encoder = new OggOpusEncoder({ maxFramesPerPage: 10 });
    const stream = Buffer.concat([encoder.push(Buffer.concat(segments)), encoder.end()]);
    const audioPages = new OggPageReader().push(stream).slice(2);
    expect(audioPages.length).toBeGreaterThan(10);
    for (const page of audioPages) expect(oggPagePackets(page).length).toBeLessThanOrEqual(10);
    expect((await decodeWithWasm(stream)).samplesDecoded).toBe(inputSamples);
  });

  it('never returns header pages alone and holds output until a frame completes', () => {
    const encoder = new OggOpusEncoder();
    expect(encoder.push(Buffer.alloc(100 * 2)).byteLength).toBe(0);
    const first = new OggPageReader().push(encoder.push(Buffer.alloc(900 * 2)));
    expect(first).toHaveLength(3); // head, tags, one audio page
  });

  it('ends a stream without audio as a valid, empty stream', async () => {
    const stream = new OggOpusEncoder().end();
    const decoded = await decodeWithFfmpeg(stream);
    // ffmpeg only notes that there was nothing to decode.
    expect(decoded.stderr).not.toMatch(/crc|invalid|error|corrupt/i);
    expect(decoded.pcm.byteLength).toBe(0);
    const counter = new OggOpusDurationCounter();
    counter.push(stream);
    expect(counter.durationMs).toBe(0);
  });

  it.each([0, 10])('encodes at complexity %i', async (complexity) => {
    const stream = Buffer.concat(encodeSegments(new OggOpusEncoder({ complexity })));
    const decoded = await decodeWithWasm(stream);
    expect(decoded.samplesDecoded).toBe(inputSamples);
  });

  it('rejects an invalid complexity and use after end', () => {
    expect(() => new OggOpusEncoder({ complexity: 11 })).toThrow(RangeError);
    const encoder = new OggOpusEncoder();
    encoder.end();
    expect(() => encoder.push(Buffer.alloc(2))).toThrow(MediaError);
  });
});

describe('createOggOpusEncoder', () => {
  it('streams pages through the AudioEncoder interface', async () => {
    const encoder = createOggOpusEncoder();
    const reading = (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of encoder.output) chunks.push(chunk);
      return chunks;
    })();
    for (const segment of segments) await encoder.write(segment);
    await encoder.end();
    const decoded = await decodeWithWasm(Buffer.concat(await reading));
    expect(decoded.samplesDecoded).toBe(inputSamples);
  });
});

describe('OggOpusEncoder from 24 kHz input', () => {
  it('picks 24 kHz input for sources up to 24 kHz and 48 kHz above', () => {
    expect(opusInputRateFor(22050)).toBe(24000);
    expect(opusInputRateFor(24000)).toBe(24000);
    expect(opusInputRateFor(16000)).toBe(24000);
    expect(opusInputRateFor(44100)).toBe(48000);
    expect(opusInputRateFor(undefined)).toBe(48000);
    expect(() => new OggOpusEncoder({ inputSampleRateHz: 22050 as 24000 })).toThrow(RangeError);
  });

  it('decodes at 48 kHz to exactly twice the input samples, aligned, with the same duration', async () => {
    const speech = await espeakPcm('Encoded from twenty four kilohertz input.');
    const resampler = await createResampler(22050, 24000);
    const pcm24k = Buffer.concat([resampler.push(speech.data), resampler.flush()]);
    resampler.destroy();
    const encoder = new OggOpusEncoder({ inputSampleRateHz: 24000 });
    const chunks: Buffer[] = [];
    for (const chunk of splitPcm({ data: pcm24k, sampleRateHz: 24000 }, 4, 3000)) {
      chunks.push(encoder.push(chunk.data));
    }
    chunks.push(encoder.end());
    const stream = Buffer.concat(chunks);
    // OpusHead records the input rate; the pre-skip stays in 48 kHz samples.
    const head = oggPagePackets([...new OggPageReader().push(stream)][0]!)[0]!;
    expect(head.readUInt16LE(10)).toBe(LIBOPUS_LOOKAHEAD_SAMPLES);
    expect(head.readUInt32LE(12)).toBe(24000);

    const decoded = await decodeWithWasm(stream);
    expect(decoded.errors).toEqual([]);
    expect(decoded.sampleRate).toBe(48000);
    expect(decoded.samplesDecoded).toBe((pcm24k.byteLength / 2) * 2);
    const output = decoded.channelData[0]!;
    expect(floatRms(output)).toBeGreaterThan(0.02);

    // Aligned: the decoded 48 kHz audio matches the input upsampled, with no lag.
    const up = await createResampler(24000, 48000);
    const input = pcmToFloat32(Buffer.concat([up.push(pcm24k), up.flush()]));
    up.destroy();
    expect(Math.abs(bestLag(input, output))).toBeLessThanOrEqual(2);

    const counter = new OggOpusDurationCounter();
    counter.push(stream);
    expect(counter.durationMs).toBe(Math.round(((pcm24k.byteLength / 2) * 1000) / 24000));
    const ffmpeg = await decodeWithFfmpeg(stream);
    expect(ffmpeg.sampleRateHz).toBe(48000);
  });
});
