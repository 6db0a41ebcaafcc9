import { describe, expect, it } from 'vitest';
import { audioCostMillicredits } from '../../../src/billing/pricing.ts';
import { ApiError } from '../../../src/errors.ts';
import { PcmInput } from '../../../src/transcription/audio-input.ts';
import { transcriptionCost } from '../../../src/transcription/pricing.ts';
import { parseClientEvent } from '../../../src/transcription/protocol.ts';
import { transcriptionWebsocketUrl } from '../../../src/transcription/route.ts';

function refusal(value: unknown): string {
  try {
    parseClientEvent(value);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_request');
    return (error as ApiError).detail;
  }
  throw new Error('accepted');
}

describe('client events', () => {
  it('reads start, base64 audio, flush and stop', () => {
    expect(
      parseClientEvent({
        event: 'start',
        audio_format: 'pcm_24000',
        language: 'es-MX',
        interim_results: false,
        endpointing: 'manual',
        partner_session_id: 'call-1',
      }),
    ).toEqual({
      event: 'start',
      audio_format: 'pcm_24000',
      language: 'es-MX',
      interim_results: false,
      endpointing: 'manual',
      partner_session_id: 'call-1',
    });
    expect(parseClientEvent({ event: 'audio', audio: 'AAEC' })).toEqual({
      event: 'audio',
      data: Buffer.from([0, 1, 2]),
    });
    expect(parseClientEvent({ event: 'flush' })).toEqual({ event: 'flush' });
    expect(parseClientEvent({ event: 'stop' })).toEqual({ event: 'stop' });
  });

  it('refuses what is not the protocol, naming the problem', () => {
    expect(refusal([])).toContain('JSON object');
    expect(refusal({ event: 'text', text: 'x' })).toContain('Unknown event');
    expect(refusal({ event: 'start', audio_format: 'pcm' })).toContain('audio_format');
    expect(refusal({ event: 'start', audio_format: 'pcm_16000', session_id: 'x' })).toContain(
      'session_id',
    );
    expect(refusal({ event: 'stop', now: true })).toContain('unknown field "now"');
    expect(refusal({ event: 'audio', audio: 'not base64!' })).toContain('base64');
    expect(refusal({ event: 'audio', audio: '' })).toContain('audio');
    expect(
      refusal({ event: 'start', audio_format: 'pcm_16000', partner_session_id: '' }),
    ).toContain('partner_session_id');
  });
});

describe('PcmInput', () => {
  it('counts the audio received and completes a sample split across frames', async () => {
    const input = await PcmInput.create(16_000);
    const samples = Int16Array.of(1000, -2000, 3000);
    const bytes = Buffer.from(samples.buffer);
    expect(input.receivedMsAfter(3)).toBe(0);
    const first = input.push(bytes.subarray(0, 3));
    const second = input.push(bytes.subarray(3));
    expect([...first, ...second, ...input.finish()]).toEqual([1000, -2000, 3000]);
    input.push(Buffer.alloc(32_000 - 6));
    expect(input.receivedMs).toBe(1000);
    input.destroy();
  });

  it('resamples 48 kHz to 16 kHz: a second in, a second out', async () => {
    const input = await PcmInput.create(48_000);
    const out = [input.push(Buffer.alloc(96_000)), input.finish()];
    expect(out.reduce((sum, part) => sum + part.length, 0)).toBe(16_000);
    expect(input.receivedMs).toBe(1000);
    input.destroy();
  });
});

describe('pricing', () => {
  it('charges audio by the millisecond, rounded up to a whole millicredit', () => {
    // 6 credits a minute: 0.1 millicredit per millisecond.
    expect(audioCostMillicredits(3000, 6000)).toBe(300);
    expect(audioCostMillicredits(1, 6000)).toBe(1);
    expect(audioCostMillicredits(0, 6000)).toBe(0);
    expect(transcriptionCost(300)).toEqual({
      credits: 0.3,
      amount: 0.0003,
      currency: 'USD',
      pass_through: false,
    });
  });
});

describe('transcriptionWebsocketUrl', () => {
  it('keeps the origin and path prefix of the configured stream URL', () => {
    expect(transcriptionWebsocketUrl('wss://api.example.com/v1/tts/stream')).toBe(
      'wss://api.example.com/v1/realtime-transcription',
    );
    expect(transcriptionWebsocketUrl('wss://example.com/speech/v1/tts/stream')).toBe(
      'wss://example.com/speech/v1/realtime-transcription',
    );
    expect(transcriptionWebsocketUrl('ws://localhost:8080/v1/tts/stream')).toBe(
      'ws://localhost:8080/v1/realtime-transcription',
    );
  });
});
