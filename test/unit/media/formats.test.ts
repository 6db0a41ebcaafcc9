import { describe, expect, it } from 'vitest';
import {
  getOutputFormatInfo,
  isOutputFormat,
  OUTPUT_FORMATS,
  parseOutputFormat,
} from '../../../media/formats.ts';

describe('parseOutputFormat', () => {
  it.each(OUTPUT_FORMATS)('accepts %s', (value) => {
    const parsed = parseOutputFormat(value);
    expect(parsed).toMatchObject({ ok: true, format: value });
    expect(parsed.ok && parsed.info.id).toBe(value);
  });

  it('refuses bare pcm: the rate must never be inferred', () => {
    expect(parseOutputFormat('pcm')).toMatchObject({ ok: false, reason: 'missing_rate' });
  });

  it.each(['pcm_22050', 'mp3_44100', 'PCM_24000', ' pcm_24000', 'opus', 'aac_44100', ''])(
    'refuses %j as unknown',
    (value) => {
      expect(parseOutputFormat(value)).toMatchObject({ ok: false, reason: 'unknown_format' });
      expect(isOutputFormat(value)).toBe(false);
    },
  );

  it('does not treat inherited object keys as formats', () => {
    expect(parseOutputFormat('toString')).toMatchObject({ ok: false });
    expect(parseOutputFormat('__proto__')).toMatchObject({ ok: false });
  });
});

describe('output format registry', () => {
  it('describes each format with rate, content type and bitrate', () => {
    const table = OUTPUT_FORMATS.map((format) => {
      const { id, codec, contentType, sampleRateHz, bitrateBps, channels } =
        getOutputFormatInfo(format);
      return { id, codec, contentType, sampleRateHz, bitrateBps, channels };
    });
    expect(table).toEqual([
      {
        id: 'pcm_16000',
        codec: 'pcm',
        contentType: 'audio/pcm;rate=16000;channels=1',
        sampleRateHz: 16000,
        bitrateBps: 256000,
        channels: 1,
      },
      {
        id: 'pcm_24000',
        codec: 'pcm',
        contentType: 'audio/pcm;rate=24000;channels=1',
        sampleRateHz: 24000,
        bitrateBps: 384000,
        channels: 1,
      },
      {
        id: 'pcm_44100',
        codec: 'pcm',
        contentType: 'audio/pcm;rate=44100;channels=1',
        sampleRateHz: 44100,
        bitrateBps: 705600,
        channels: 1,
      },
      {
        id: 'pcm_48000',
        codec: 'pcm',
        contentType: 'audio/pcm;rate=48000;channels=1',
        sampleRateHz: 48000,
        bitrateBps: 768000,
        channels: 1,
      },
      {
        id: 'aac_44100_128',
        codec: 'aac',
        contentType: 'audio/aac',
        sampleRateHz: 44100,
        bitrateBps: 128000,
        channels: 1,
      },
      {
        id: 'opus_48000_64',
        codec: 'opus',
        contentType: 'audio/ogg; codecs=opus',
        sampleRateHz: 48000,
        bitrateBps: 64000,
        channels: 1,
      },
    ]);
  });

  it('gives every format an encoder at its own rate and a duration counter', () => {
    for (const format of OUTPUT_FORMATS) {
      const info = getOutputFormatInfo(format);
      const encoder = info.createEncoder({ signal: AbortSignal.abort() });
      expect(encoder.sampleRateHz).toBe(info.sampleRateHz);
      expect(info.createDurationCounter().durationMs).toBe(0);
    }
  });
});
