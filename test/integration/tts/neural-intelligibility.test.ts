/**
 * The neural voices say the words: sentences synthesized through `POST /v1/tts` are
 * transcribed by the embedded speech to text (Whisper base, the configured default, with
 * the voice's language set), and the word error rate over each voice's sentences is at
 * most 10% in English and 15% in the other languages. One api (one model copy) and one Whisper sidecar serve every case.
 */
import { pino } from 'pino';
import { createResampler } from '../../../media/resample.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { loadSttConfig } from '../../../src/stt/config.ts';
import { defaultSidecarPython, defaultWhisperModelDir } from '../../../src/stt/embedded/paths.ts';
import { EmbeddedSttProvider } from '../../../src/stt/embedded/provider.ts';
import { STT_SAMPLE_RATE_HZ } from '../../../src/stt/provider.ts';
import {
  findKokoroVoice,
  KOKORO_SAMPLE_RATE_HZ,
  type KokoroVoice,
} from '../../../src/tts/providers/kokoro/index.ts';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { NEURAL_SENTENCES } from '../../helpers/neural-sentences.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import { normalizeWords, wordEditDistance } from '../../helpers/wer.ts';

/**
 * English: at most one word in ten wrong over a voice's sentences. Other languages: the
 * bound their voices were admitted to the catalog with, 15%; Whisper base misses more
 * there on its own (it wrote "que" for "Qué" from a clear voice).
 */
const MAX_WER = { en: 0.1, other: 0.15 } as const;

/**
 * One voice per catalog language (docs/decisions.md, "Neural voices", has the measured
 * table for every Kokoro language): English reads three sentences, the others two.
 */
const CASES: readonly { voice: string; voiceId: string; language: string }[] = [
  { voice: 'Heart (US English)', voiceId: 'voice_AG63NAA6qYXtuK33ioJM', language: 'en' },
  { voice: 'George (UK English)', voiceId: 'voice_hav5WbXAWimDy5RvrEl3', language: 'en' },
  { voice: 'Dora (Spanish)', voiceId: 'voice_lkEd6JcE932FhdxBeK4q', language: 'es' },
  { voice: 'Siwis (French)', voiceId: 'voice_GMgIQ3mNYdo0CbKJvX8j', language: 'fr' },
  { voice: 'Sara (Italian)', voiceId: 'voice_ZJmQJa2AbxLLn2hZKoQ4', language: 'it' },
  { voice: 'Dora (Brazilian Portuguese)', voiceId: 'voice_BP9oOLCez0EXIoy9GGqD', language: 'pt' },
];

const sttConfig = loadSttConfig({});

// SQLite only: the neural engine does not touch the database.
describe('neural voices heard by the embedded speech to text (sqlite)', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let whisper: EmbeddedSttProvider;

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get('sqlite'));
    ws = await seedWorkspace(handle);
    whisper = new EmbeddedSttProvider({
      pythonPath: defaultSidecarPython(),
      modelDir: defaultWhisperModelDir(sttConfig.WHISPER_MODEL),
      beamSize: sttConfig.WHISPER_BEAM_SIZE,
      threads: sttConfig.WHISPER_THREADS,
      minWindowS: sttConfig.WHISPER_MIN_WINDOW_S,
      maxQueue: sttConfig.STT_MAX_QUEUE,
      requestTimeoutMs: 120_000,
      startTimeoutMs: 120_000,
      logger: pino({ level: 'silent' }),
    });
    [server] = await Promise.all([
      startServer({
        database,
        env: {
          TTS_RATE_LIMIT_PER_MINUTE: '0',
          NATIVE_NEURAL_VOICES: 'true',
          KOKORO_MAX_WAIT_MS: '120000',
        },
      }),
      whisper.warmUp(),
    ]);
  }, 180_000);

  afterAll(async () => {
    await whisper?.close();
    await server?.stop();
  });

  /** The voice's speech of `text` as a client receives it (`pcm_24000`), at 16 kHz. */
  async function speak(voice: KokoroVoice, text: string): Promise<Int16Array> {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, voice_id: voice.id, output_format: 'pcm_24000' }),
    });
    expect(response.status).toBe(200);
    const resampler = await createResampler(KOKORO_SAMPLE_RATE_HZ, STT_SAMPLE_RATE_HZ);
    const pcm = Buffer.concat([
      resampler.push(Buffer.from(await response.arrayBuffer())),
      resampler.flush(),
    ]);
    resampler.destroy();
    return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2).slice();
  }

  it.each(CASES)(
    '$voice reads its sentences within the word error rate bound',
    async ({ voiceId, language }) => {
      const voice = findKokoroVoice(voiceId);
      expect(voice?.language.slice(0, 2)).toBe(language);
      const sentences = NEURAL_SENTENCES[language] ?? [];
      expect(sentences.length).toBeGreaterThanOrEqual(2);
      const signal = new AbortController().signal;
      let edits = 0;
      let words = 0;
      const heard: string[] = [];
      for (const sentence of sentences) {
        const samples = await speak(voice as KokoroVoice, sentence);
        const result = await whisper.transcribe(samples, { language }, signal);
        const reference = normalizeWords(sentence);
        edits += wordEditDistance(reference, normalizeWords(result.text));
        words += reference.length;
        heard.push(result.text);
      }
      // The transcripts are in the failure message, so a regression shows what was heard.
      expect({ heard, wer: edits / words }).toEqual({
        heard,
        wer: expect.toSatisfy(
          (wer: number) => wer <= (language === 'en' ? MAX_WER.en : MAX_WER.other),
        ),
      });
    },
    300_000,
  );
});
