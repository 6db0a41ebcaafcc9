import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PcmChunk } from '../../../../media/pcm.ts';
import { ProviderError } from '../../../../src/tts/providers/errors.ts';
import {
  createKokoroEngine,
  InferencePool,
  KOKORO_INSTALL_COMMAND,
  KOKORO_SAMPLE_RATE_HZ,
  KOKORO_VOICES,
  KokoroFilesMissingError,
  locateKokoroFiles,
} from '../../../../src/tts/providers/kokoro/index.ts';
import { runProviderConformance } from '../conformance.ts';
import { peak, rms, summarize } from '../pcm-stats.ts';
import { startKokoro } from './engine.ts';

const phonemes: { text: string; phonemes: string; tokens: number }[] = [];
const kokoro = startKokoro({}, { onPhonemes: (event) => phonemes.push(event) });
afterAll(() => kokoro.close());

const SENTENCES = [
  'The weather is lovely today.',
  'We walked along the river until sunset.',
  'Tomorrow we will visit the old castle on the hill.',
];

async function collect(stream: AsyncIterable<PcmChunk>): Promise<PcmChunk[]> {
  const chunks: PcmChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

runProviderConformance(
  'kokoro',
  () => kokoro.provider,
  { text: 'Hello, this is a short test sentence.', providerVoiceId: 'af_heart' },
  { longRequest: { text: SENTENCES.join(' '), providerVoiceId: 'af_heart' }, abortGraceMs: 1000 },
);

describe('KokoroProvider', () => {
  beforeAll(() => kokoro.pool.ready(), 60_000);

  it('speaks three sentences chunk by chunk at 24 kHz, with durations that fit the words', async () => {
    phonemes.length = 0;
    const chunks = await collect(
      kokoro.provider.synthesize(
        { text: SENTENCES.join(' '), providerVoiceId: 'af_heart' },
        new AbortController().signal,
      ),
    );
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) expect(chunk.sampleRateHz).toBe(KOKORO_SAMPLE_RATE_HZ);
    const audio = summarize(chunks);
    // 25 words spoken at a natural pace: 130-220 words per minute.
    const words = SENTENCES.join(' ').split(' ').length;
    expect(audio.durationMs).toBeGreaterThan((words / 220) * 60_000);
    expect(audio.durationMs).toBeLessThan((words / 130) * 60_000);
    expect(peak(audio.pcm)).toBeGreaterThan(3000);
    // Every word reached the model as espeak-ng IPA, in order.
    expect(phonemes.map((p) => p.text).join(' ')).toBe(SENTENCES.join(' '));
    expect(phonemes.map((p) => p.phonemes).join(' ')).toContain('kˈæsəl');
  }, 60_000);

  it('joins chunks without clicks: each seam starts and ends near zero', async () => {
    const chunks = await collect(
      kokoro.provider.synthesize(
        { text: SENTENCES.join(' '), providerVoiceId: 'bm_george' },
        new AbortController().signal,
      ),
    );
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < chunks.length; i++) {
      const samples = new Int16Array(
        chunks[i]!.data.buffer.slice(
          chunks[i]!.data.byteOffset,
          chunks[i]!.data.byteOffset + chunks[i]!.data.byteLength,
        ),
      );
      expect(Math.abs(samples[0]!), `start of chunk ${i}`).toBeLessThan(200);
      expect(Math.abs(samples.at(-1)!), `end of chunk ${i}`).toBeLessThan(200);
      // The first and last 2 ms rise and fall gradually (the fade), never a step.
      let jump = 0;
      for (const range of [
        [1, 48],
        [samples.length - 48, samples.length - 1],
      ] as const) {
        for (let j = range[0]; j < range[1]; j++)
          jump = Math.max(jump, Math.abs(samples[j]! - samples[j - 1]!));
      }
      expect(jump, `edge step of chunk ${i}`).toBeLessThan(2500);
      expect(rms(chunks[i]!.data)).toBeGreaterThan(200);
    }
  }, 60_000);

  it('maps params.speed to the model: faster speech is shorter', async () => {
    const request = { text: 'Counting slowly from one to ten.', providerVoiceId: 'af_bella' };
    const normal = summarize(
      await collect(kokoro.provider.synthesize(request, new AbortController().signal)),
    );
    const fast = summarize(
      await collect(
        kokoro.provider.synthesize({ ...request, speed: 1.6 }, new AbortController().signal),
      ),
    );
    expect(fast.durationMs).toBeLessThan(normal.durationMs * 0.8);
  }, 60_000);

  it('stops at the next chunk when cancelled', async () => {
    const controller = new AbortController();
    const reason = new Error('client left');
    let chunks = 0;
    let thrown: unknown;
    try {
      for await (const _ of kokoro.provider.synthesize(
        { text: SENTENCES.join(' '), providerVoiceId: 'af_heart' },
        controller.signal,
      )) {
        chunks += 1;
        controller.abort(reason);
      }
    } catch (error) {
      thrown = error;
    }
    expect(chunks).toBe(1);
    expect(thrown).toBe(reason);
    // Nothing is left queued or running for the cancelled request.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect.poll(() => kokoro.pool.stats.busy, { timeout: 10_000 }).toBe(0);
    expect(kokoro.pool.stats.queued).toBe(0);
  }, 60_000);

  it('rejects a voice that is not a Kokoro voice', async () => {
    const run = collect(
      kokoro.provider.synthesize(
        { text: 'Hi.', providerVoiceId: 'zz_nobody' },
        new AbortController().signal,
      ),
    );
    await expect(run).rejects.toMatchObject({ failure: 'rejected' });
  });

  it('ships only voices whose style vectors are installed, with the native formats', () => {
    for (const voice of KOKORO_VOICES) {
      expect(voice.outputFormats).toEqual([
        'pcm_24000',
        'pcm_44100',
        'pcm_48000',
        'aac_44100_128',
        'opus_48000_64',
      ]);
      expect(voice.capabilities).toEqual(['tts']);
      expect(voice.name).toMatch(
        /^[A-Z][a-z]+ \((US English|UK English|Spanish|French|Italian|Brazilian Portuguese), neural\)$/,
      );
    }
    // Checked with the embedded speech to text (docs/decisions.md, "Neural voices").
    expect(new Set(KOKORO_VOICES.map((voice) => voice.language))).toEqual(
      new Set(['en-US', 'en-GB', 'es-ES', 'fr-FR', 'it-IT', 'pt-BR']),
    );
    expect(new Set(KOKORO_VOICES.map((voice) => voice.id)).size).toBe(KOKORO_VOICES.length);
  });
});

describe('neural engine capacity', () => {
  it('refuses a request at once with a retryable overloaded error when saturated', async () => {
    const busy = startKokoro({ concurrentInferences: 1, maxWaitMs: 300, threadsPerInference: 1 });
    try {
      await busy.pool.ready();
      const long = {
        text: `${SENTENCES.join(' ')} ${SENTENCES.join(' ')}`,
        providerVoiceId: 'af_heart',
      };
      const first = collect(busy.provider.synthesize(long, new AbortController().signal));
      const second = collect(busy.provider.synthesize(long, new AbortController().signal));
      // Either may itself be refused once the other fills the queue; settle both now.
      const admitted = Promise.allSettled([first, second]);
      let admittedSettled = false;
      void admitted.then(() => {
        admittedSettled = true;
      });
      await expect.poll(() => busy.pool.stats.saturated, { timeout: 60_000 }).toBe(true);
      const refused = collect(
        busy.provider.synthesize(
          { text: 'One more, please.', providerVoiceId: 'af_heart' },
          new AbortController().signal,
        ),
      );
      const error = await refused.then(
        () => undefined,
        (e: unknown) => e,
      );
      // Refused at once: while the work ahead of it is still running, not after waiting.
      expect(admittedSettled).toBe(false);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).failure).toBe('overloaded');
      expect((error as ProviderError).retryable).toBe(true);
      expect((error as ProviderError).toApiError().code).toBe('provider_unavailable');
      // The streams already admitted finish.
      const outcomes = await admitted;
      expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    } finally {
      await busy.close();
    }
  }, 120_000);
});

describe('neural engine installation', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kokoro-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('names the setup step when the weights are missing, and the api goes on without them', () => {
    expect(() => locateKokoroFiles(dir)).toThrow(KokoroFilesMissingError);
    expect(() => locateKokoroFiles(dir)).toThrow(KOKORO_INSTALL_COMMAND);
    const warnings: string[] = [];
    const engine = createKokoroEngine({
      dir,
      phonemizer: async () => [],
      warn: (message) => warnings.push(message),
    });
    expect(engine).toBeNull();
    expect(warnings).toEqual([expect.stringContaining('bash scripts/install-kokoro.sh')]);
  });

  it('takes an installation of the model without its durations output for missing, naming the install step', async () => {
    const older = await mkdtemp(path.join(tmpdir(), 'kokoro-older-'));
    try {
      await writeFile(path.join(older, 'kokoro-v1.0.fp32.onnx'), Buffer.alloc(16));
      await writeFile(
        path.join(older, 'manifest.json'),
        JSON.stringify({
          model: { file: 'kokoro-v1.0.fp32.onnx', sha256: '0'.repeat(64) },
          voices: {},
        }),
      );
      expect(() => locateKokoroFiles(older)).toThrow(
        `Kokoro neural voices are not installed in ${older} (the installed model has no durations output); run \`bash scripts/install-kokoro.sh\``,
      );
    } finally {
      await rm(older, { recursive: true, force: true });
    }
  });

  it('refuses a corrupt model file with a message naming the file and the fix', async () => {
    const model = path.join(dir, 'kokoro-v1.0.fp32-durations.onnx');
    await writeFile(model, Buffer.alloc(4096, 7));
    await writeFile(
      path.join(dir, 'manifest.json'),
      JSON.stringify({
        model: {
          file: 'kokoro-v1.0.fp32-durations.onnx',
          sha256: '0'.repeat(64),
          outputs: ['audio', 'durations'],
        },
        voices: {},
      }),
    );
    const failures: string[] = [];
    const pool = new InferencePool({
      ...(({ modelPath, modelSha256 }) => ({ modelPath, modelSha256 }))(locateKokoroFiles(dir)),
      sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
      threadsPerInference: 1,
      concurrentInferences: 1,
      maxWaitMs: 1000,
      onLoadFailure: (message) => failures.push(message),
    });
    try {
      await expect(pool.ready()).rejects.toMatchObject({ failure: 'unavailable' });
      expect(failures[0]).toContain(model);
      expect(failures[0]).toMatch(/corrupt.*install-kokoro\.sh/);
      const run = pool.run(
        { tokens: [0, 50, 0], style: new Float32Array(256), speed: 1, first: true, seam: 'end' },
        new AbortController().signal,
      );
      await expect(run).rejects.toMatchObject({ failure: 'unavailable' });
    } finally {
      await pool.close();
    }
  });
});
