import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { beforeAll, describe, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { decodeDelivered, expectNoInternalNames } from '../../helpers/tts.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

// Each test synthesizes (every format, every voice); on a busy machine that takes a while.
vi.setConfig({ testTimeout: budget({ extraMs: 60_000 }) });

const NATIVE_FORMATS = ['pcm_24000', 'pcm_44100', 'pcm_48000', 'aac_44100_128', 'opus_48000_64'];
const CONTENT_TYPES: Record<string, string> = {
  pcm_24000: 'audio/pcm;rate=24000;channels=1',
  pcm_44100: 'audio/pcm;rate=44100;channels=1',
  pcm_48000: 'audio/pcm;rate=48000;channels=1',
  aac_44100_128: 'audio/aac',
  opus_48000_64: 'audio/ogg; codecs=opus',
};
const SENTENCE = 'The quick brown fox jumps over the lazy dog, then rests in the warm sun.';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeEachDialect('POST /v1/tts on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let voiceId: string;
  /** Every response body and header seen, scanned for internal names at the end. */
  const seen: string[] = [];

  const tts = async (
    body: unknown,
    init: { key?: string; contentType?: string; raw?: string } = {},
  ) => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${init.key ?? ws.productionKey}`,
        'content-type': init.contentType ?? 'application/json',
      },
      body: init.raw ?? JSON.stringify(body),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    seen.push(JSON.stringify([...response.headers]));
    if (!response.headers.get('content-type')?.startsWith('audio/'))
      seen.push(bytes.toString('utf8'));
    return { response, bytes };
  };
  const expectInvalid = async (body: unknown, code = 'invalid_request', status = 400) => {
    const { response, bytes } = await tts(body);
    expect(response.status, JSON.stringify(body).slice(0, 200)).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    const error = JSON.parse(bytes.toString('utf8'));
    expect(error).toEqual({
      event: 'error',
      request_id: response.headers.get('x-request-id'),
      code,
      retryable: false,
      detail: expect.any(String),
    });
    return error as { detail: string };
  };

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, { env: { TTS_RATE_LIMIT_PER_MINUTE: '0' } });
      voiceId = NATIVE_VOICES[0]!.id;
    },
    budget({ servers: 1 }),
  );

  it('lists the native voices with exactly the public fields', async () => {
    const response = await fetch(`${server.url}/v1/voices`, {
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    const text = await response.text();
    seen.push(text);
    const { voices } = JSON.parse(text) as { voices: Record<string, unknown>[] };
    expect(voices.length).toBeGreaterThanOrEqual(8);
    for (const voice of voices) {
      expect(Object.keys(voice).sort()).toEqual([
        'capabilities',
        'id',
        'name',
        'nsfw',
        'output_formats',
      ]);
      expect(voice.id).toMatch(/^voice_[0-9A-Za-z]+$/);
      expect(voice.output_formats).toEqual(NATIVE_FORMATS);
      expect(voice.output_formats).not.toContain('pcm_16000');
      expect(voice.capabilities).toEqual(['tts', 'word_alignment']);
      expect(voice.nsfw).toBe(false);
    }
    // The development environment sees the catalog too (native voices are everywhere).
    const dev = await fetch(`${server.devUrl}/v1/voices`, {
      headers: { authorization: `Bearer ${ws.developmentKey}` },
    });
    expect(((await dev.json()) as { voices: unknown[] }).voices.length).toBe(voices.length);
  });

  it.each(NATIVE_FORMATS)(
    'synthesizes %s: decodable, right rate, duration header, not silence',
    async (format) => {
      const { response, bytes } = await tts({
        text: SENTENCE,
        voice_id: voiceId,
        output_format: format,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(CONTENT_TYPES[format]);
      expect(response.headers.get('x-audio-format')).toBe(format);
      expect(response.headers.get('x-request-id')).toMatch(UUID_V7);
      expect(response.headers.get('x-audit-id')).toMatch(/^aud_[0-9a-f-]{36}$/);
      expect(response.headers.get('server-timing')).toMatch(/^synth;dur=\d+(\.\d+)?$/);
      const decoded = await decodeDelivered(format, bytes);
      const rate = Number(/_(\d{5})/.exec(format)![1]);
      expect(decoded.sampleRateHz).toBe(rate);
      expect(decoded.channels).toBe(1);
      expect(decoded.rms).toBeGreaterThan(0.01);
      const header = Number(response.headers.get('x-audio-duration-ms'));
      expect(decoded.durationMs).toBeGreaterThan(2500);
      expect(Math.abs(header - decoded.durationMs) / decoded.durationMs).toBeLessThan(0.05);
    },
  );

  it('speaks every native voice', async () => {
    for (const voice of NATIVE_VOICES) {
      const { response, bytes } = await tts({
        text: '1 2 3',
        voice_id: voice.id,
        output_format: 'pcm_24000',
      });
      expect(response.status, voice.name).toBe(200);
      expect((await decodeDelivered('pcm_24000', bytes)).rms, voice.name).toBeGreaterThan(0.01);
    }
  });

  it('records the request in the ledger and persists the audio afterwards', async () => {
    const { response } = await tts({
      text: 'Ledger test.',
      voice_id: voiceId,
      output_format: 'opus_48000_64',
      partner_session_id: 'partner-1',
      context_id: 'turn-7',
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const row = await handle.db
      .selectFrom('synthesis_requests')
      .selectAll()
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      audit_id: response.headers.get('x-audit-id'),
      workspace_id: ws.workspaceId,
      environment: 'production',
      api_key_id: ws.productionKeyId,
      transport: 'http',
      voice_id: voiceId,
      output_format: 'opus_48000_64',
      partner_session_id: 'partner-1',
      context_id: 'turn-7',
      chars_synthesized: 12,
      status: 'succeeded',
      error_code: null,
    });
    expect(row.route).toContain(':');
    expect(Number(row.cost_millicredits)).toBe(120); // 10 credits per 1,000 characters
    expect(Number(row.encoded_duration_ms)).toBe(
      Number(response.headers.get('x-audio-duration-ms')),
    );
    expect(Number(row.provider_audio_ms)).toBeGreaterThan(0);
    // The in-process worker stores the audio after the answer went out.
    const persisted = await waitFor(
      async () => {
        const current = await handle.db
          .selectFrom('synthesis_requests')
          .selectAll()
          .where('request_id', '=', requestId)
          .executeTakeFirstOrThrow();
        return Number(current.audio_persisted) === 1 ? current : undefined;
      },
      { what: `the audio of ${requestId} to be persisted`, intervalMs: 100 },
    );
    expect(persisted.audio_location).toContain(requestId);
  });

  describe('request validation', () => {
    const valid = () => ({ text: 'Hello.', voice_id: voiceId, output_format: 'pcm_24000' });

    it('counts the text limit in Unicode code points', async () => {
      // 20,000 code points (20,001 UTF-16 units) pass validation: the unknown voice answers.
      const atLimit = `${'a'.repeat(19_999)}😀`;
      expect(atLimit.length).toBe(20_001);
      await expectInvalid(
        { ...valid(), text: atLimit, voice_id: 'voice_unknown' },
        'voice_not_found',
        404,
      );
      const error = await expectInvalid({ ...valid(), text: `${atLimit}a` });
      expect(error.detail).toContain('20000');
    });

    it('requires text, voice_id and output_format', async () => {
      const { text: _t, ...noText } = valid();
      await expectInvalid(noText);
      const { voice_id: _v, ...noVoice } = valid();
      await expectInvalid(noVoice);
      const { output_format: _f, ...noFormat } = valid();
      await expectInvalid(noFormat);
      await expectInvalid({ ...valid(), text: 42 });
    });

    it('refuses empty text without tags, and tag-only requests on a voice without voice_tags', async () => {
      await expectInvalid({ ...valid(), text: '' });
      await expectInvalid({ ...valid(), text: '', params: { voice_tags: ['whispering'] } });
      await expectInvalid({ ...valid(), text: '   ' });
    });

    it('strips inline cues and structured tags on a voice without voice_tags', async () => {
      const plain = await tts({ ...valid(), text: 'Hello there.' });
      const cued = await tts({
        ...valid(),
        text: '[whispering] Hello there. [laughs softly]',
        params: { voice_tags: ['excited'] },
      });
      expect(plain.response.status).toBe(200);
      expect(cued.response.status).toBe(200);
      // The cues are not read aloud: the same words, the same audio length.
      const plainMs = Number(plain.response.headers.get('x-audio-duration-ms'));
      const cuedMs = Number(cued.response.headers.get('x-audio-duration-ms'));
      expect(Math.abs(plainMs - cuedMs)).toBeLessThan(plainMs * 0.1);
      await expectInvalid({ ...valid(), text: '[laughs] [sighs]' });
    });

    it('refuses formats the voice does not list, bare pcm and unknown formats', async () => {
      await expectInvalid({ ...valid(), output_format: 'pcm' });
      await expectInvalid({ ...valid(), output_format: 'pcm_16000' });
      await expectInvalid({ ...valid(), output_format: 'mp3_44100_128' });
      await expectInvalid({ ...valid(), output_format: 'PCM_24000' });
    });

    it('answers voice_not_found for unknown and provider voice ids', async () => {
      await expectInvalid({ ...valid(), voice_id: 'voice_doesnotexist' }, 'voice_not_found', 404);
      await expectInvalid(
        { ...valid(), voice_id: NATIVE_VOICES[0]!.providerVoiceId },
        'voice_not_found',
        404,
      );
      await expectInvalid({ ...valid(), voice_id: '21m00Tcm4TlvDq8ikWAM' }, 'voice_not_found', 404);
    });

    it('checks partner_session_id and context_id', async () => {
      await expectInvalid({ ...valid(), partner_session_id: '' });
      await expectInvalid({ ...valid(), partner_session_id: 'p'.repeat(201) });
      await expectInvalid({ ...valid(), partner_session_id: 7 });
      await expectInvalid({ ...valid(), context_id: '' });
      const ok = await tts({ ...valid(), partner_session_id: 'p'.repeat(200), context_id: 'c' });
      expect(ok.response.status).toBe(200);
    });

    it('checks params.speed and applies it', async () => {
      await expectInvalid({ ...valid(), params: { speed: 0 } });
      await expectInvalid({ ...valid(), params: { speed: -1 } });
      await expectInvalid({ ...valid(), params: { speed: 'fast' } });
      await expectInvalid({ ...valid(), params: { pitch: 2 } });
      const normal = await tts({ ...valid(), text: SENTENCE });
      const fast = await tts({ ...valid(), text: SENTENCE, params: { speed: 2 } });
      expect(fast.response.status).toBe(200);
      expect(Number(fast.response.headers.get('x-audio-duration-ms'))).toBeLessThan(
        Number(normal.response.headers.get('x-audio-duration-ms')) * 0.75,
      );
    });

    it('checks params.voice_tags', async () => {
      await expectInvalid({ ...valid(), params: { voice_tags: [] } });
      await expectInvalid({ ...valid(), params: { voice_tags: ['a', 'b', 'c'] } });
      await expectInvalid({ ...valid(), params: { voice_tags: ['x'.repeat(49)] } });
      await expectInvalid({ ...valid(), params: { voice_tags: ['[whispering]'] } });
      await expectInvalid({ ...valid(), params: { voice_tags: [''] } });
      await expectInvalid({ ...valid(), params: { voice_tags: 'whispering' } });
      const ok = await tts({ ...valid(), params: { voice_tags: ['x'.repeat(48), 'calm'] } });
      expect(ok.response.status).toBe(200);
    });

    it('refuses unknown fields, a client request_id and routing fields', async () => {
      await expectInvalid({ ...valid(), colour: 'blue' });
      const requestId = await expectInvalid({ ...valid(), request_id: 'mine' });
      expect(requestId.detail).toContain('request_id');
      for (const field of ['model_id', 'model', 'provider', 'provider_voice_id']) {
        const error = await expectInvalid({ ...valid(), [field]: 'eleven_v3' });
        expect(error.detail).toContain(field);
      }
    });

    it('refuses malformed JSON, a non-JSON body and an oversize body', async () => {
      const malformed = await tts(undefined, { raw: '{"text": "Hello.", ' });
      expect(malformed.response.status).toBe(400);
      expect(JSON.parse(malformed.bytes.toString()).code).toBe('invalid_request');
      const notJson = await tts(undefined, { raw: 'text=hello', contentType: 'text/plain' });
      expect(notJson.response.status).toBe(415);
      expect(JSON.parse(notJson.bytes.toString()).code).toBe('invalid_request');
      const array = await tts([1, 2, 3]);
      expect(array.response.status).toBe(400);
      const huge = await tts(undefined, {
        raw: JSON.stringify({ ...valid(), text: 'a'.repeat(600_000) }),
      });
      expect(huge.response.status).toBe(413);
      expect(JSON.parse(huge.bytes.toString()).code).toBe('invalid_request');
      // The server goes on serving.
      expect((await tts(valid())).response.status).toBe(200);
    });
  });

  it('never shows a provider, model, engine or provider voice id to the client', () => {
    const all = seen.join('\n');
    expect(expectNoInternalNames(all)).toEqual([]);
    for (const voice of NATIVE_VOICES) expect(all).not.toContain(voice.providerVoiceId);
  });
});
