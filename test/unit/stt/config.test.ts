import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/app/config.ts';
import { createSttProvider, loadSttConfig } from '../../../src/stt/config.ts';

const logger = pino({ level: 'silent' });

describe('speech-to-text configuration', () => {
  it('defaults to the embedded engine with the measured model', () => {
    expect(loadSttConfig({})).toMatchObject({
      STT_PROVIDER: 'embedded',
      WHISPER_MODEL: 'base',
      WHISPER_BEAM_SIZE: 1,
      WHISPER_MIN_WINDOW_S: 10,
      STT_EARLY_START_PAUSE_MS: 200,
      STT_MAX_QUEUE: 8,
      DEEPGRAM_BASE_URL: 'https://api.deepgram.com',
      DEEPGRAM_MODEL: 'nova-3',
      STT_OPENAI_BASE_URL: 'https://api.openai.com/v1',
      STT_OPENAI_MODEL: 'whisper-1',
      STT_OPENAI_RESPONSE_FORMAT: 'json',
    });
    expect(loadSttConfig({}).STT_LANGUAGE).toBeUndefined();
    expect(loadSttConfig({ STT_LANGUAGE: 'auto' }).STT_LANGUAGE).toBe('auto');
    expect(loadSttConfig({ STT_LANGUAGE: 'de' }).STT_LANGUAGE).toBe('de');
    expect(loadSttConfig({ WHISPER_MIN_WINDOW_S: '30' }).WHISPER_MIN_WINDOW_S).toBe(30);
    expect(loadSttConfig({ STT_EARLY_START_PAUSE_MS: '0' }).STT_EARLY_START_PAUSE_MS).toBe(0);
  });

  it('names every bad variable', () => {
    let error: unknown;
    try {
      loadSttConfig({
        STT_PROVIDER: 'vosk',
        WHISPER_BEAM_SIZE: '0',
        WHISPER_MIN_WINDOW_S: '4',
        STT_EARLY_START_PAUSE_MS: '450',
        DEEPGRAM_BASE_URL: 'not a url',
        STT_MAX_QUEUE: '',
        STT_LANGUAGE: 'English',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.map((p) => p.split(':')[0]);
    expect(problems.sort()).toEqual([
      'DEEPGRAM_BASE_URL',
      'STT_EARLY_START_PAUSE_MS',
      'STT_LANGUAGE',
      'STT_PROVIDER',
      'WHISPER_BEAM_SIZE',
      'WHISPER_MIN_WINDOW_S',
    ]);
  });

  it.each([
    ['deepgram', 'DEEPGRAM_API_KEY'],
    ['openai', 'STT_OPENAI_API_KEY'],
  ])('refuses %s without %s as not_configured', (provider, variable) => {
    expect(() => createSttProvider(loadSttConfig({ STT_PROVIDER: provider }), logger)).toThrow(
      expect.objectContaining({
        name: 'SttError',
        failure: 'not_configured',
        message: expect.stringContaining(variable),
      }),
    );
  });

  it('lets a self-hosted transcription server go without a key', async () => {
    const provider = createSttProvider(
      loadSttConfig({
        STT_PROVIDER: 'openai',
        STT_OPENAI_BASE_URL: 'http://whisper.internal:8000/v1',
      }),
      logger,
    );
    expect(provider.name).toBe('openai');
    await provider.close();
  });

  it('builds the cloud engines from their variables', async () => {
    const deepgram = createSttProvider(
      loadSttConfig({ STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'k' }),
      logger,
    );
    expect([deepgram.name, deepgram.capabilities]).toEqual([
      'deepgram',
      { streaming: true, interimResults: true },
    ]);
    const openai = createSttProvider(
      loadSttConfig({ STT_PROVIDER: 'openai', STT_OPENAI_API_KEY: 'k' }),
      logger,
    );
    expect([openai.name, openai.capabilities]).toEqual([
      'openai',
      { streaming: false, interimResults: false },
    ]);
    await Promise.all([deepgram.close(), openai.close()]);
  });
});
