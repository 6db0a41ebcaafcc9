import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MediaError } from '../../../media/errors.ts';
import { encodeWav, parsePcmWav, parseWav } from '../../../media/wav.ts';
import { espeakPcm, runProcess } from '../../helpers/audio.ts';

describe('WAV', () => {
  it('round-trips PCM through encodeWav and parsePcmWav', () => {
    const pcm = { data: Buffer.from([1, 0, 255, 127, 0, 128]), sampleRateHz: 24000 };
    expect(parsePcmWav(encodeWav(pcm))).toEqual(pcm);
  });

  it('writes files that ffprobe reads as mono 16-bit PCM at the given rate', async () => {
    // A file, not a pipe, so ffprobe computes the duration from the header sizes.
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'wav-')), 'one-second.wav');
    writeFileSync(file, encodeWav({ data: Buffer.alloc(48000), sampleRateHz: 24000 }));
    const probe = await runProcess('ffprobe', [
      '-v',
      'error',
      '-show_streams',
      '-of',
      'json',
      file,
    ]);
    rmSync(path.dirname(file), { recursive: true });
    const stream = JSON.parse(probe.stdout.toString('utf8')).streams[0];
    expect(stream).toMatchObject({ codec_name: 'pcm_s16le', sample_rate: '24000', channels: 1 });
    expect(Number(stream.duration)).toBeCloseTo(1, 3);
  });

  it('reads espeak-ng output, whose streamed header has no real data size', async () => {
    const speech = await espeakPcm('Testing.');
    expect(speech.sampleRateHz).toBe(22050);
    expect(speech.data.byteLength).toBeGreaterThan(10000);
  });

  it('skips unknown chunks and rejects what is not a mono 16-bit WAV', () => {
    const wav = encodeWav({ data: Buffer.alloc(4), sampleRateHz: 16000 });
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0, 1, 2, 3, 0])]);
    const withList = Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36)]);
    expect(parseWav(withList).data.byteLength).toBe(4);

    const stereo = Buffer.from(wav);
    stereo.writeUInt16LE(2, 22);
    expect(() => parsePcmWav(stereo)).toThrow(MediaError);
    expect(() => parseWav(Buffer.from('not a wav file'))).toThrow(MediaError);
  });
});
