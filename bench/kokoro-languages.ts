/**
 * Neural voices in each language espeak-ng phonemises for Kokoro: word error rate of the
 * embedded Whisper (base, multilingual, the language set) on two sentences per language,
 * spoken by one voice each through KokoroProvider. Needs scripts/install-kokoro.sh and
 * scripts/install-whisper.sh. Run: `node --import tsx bench/kokoro-languages.ts [voice...]`
 * (Kokoro style names, default one per language). Prints a Markdown table; decisions in
 * docs/decisions.md ("Neural voices").
 */
import { pino } from 'pino';
import { createResampler } from '../media/resample.ts';
import {
  defaultKokoroDir,
  InferencePool,
  KOKORO_SAMPLE_RATE_HZ,
  KokoroProvider,
  kokoroVoiceByStyle,
  locateKokoroFiles,
} from '../src/providers/kokoro/index.ts';
import { NativeProvider } from '../src/providers/native/index.ts';
import { NEURAL_SENTENCES } from '../test/helpers/neural-sentences.ts';
import { normalizeWords, wordEditDistance } from '../test/helpers/wer.ts';
import { defaultSidecarPython, defaultWhisperModelDir } from '../worker/stt/embedded/paths.ts';
import { EmbeddedSttProvider } from '../worker/stt/embedded/provider.ts';
import { STT_SAMPLE_RATE_HZ } from '../worker/stt/provider.ts';

const DEFAULT_VOICES = ['af_heart', 'ef_dora', 'ff_siwis', 'if_sara', 'pf_dora', 'hf_alpha'];
const styles = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_VOICES;

const files = locateKokoroFiles(defaultKokoroDir());
const native = new NativeProvider();
const pool = new InferencePool({
  modelPath: files.modelPath,
  modelSha256: files.modelSha256,
  sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
  threadsPerInference: 2,
  concurrentInferences: 1,
  maxWaitMs: 600_000,
});
const kokoro = new KokoroProvider({
  pool,
  phonemizer: (lines, language, signal) => native.phonemize(lines, language, signal),
  voicesDir: files.voicesDir,
});
const whisper = new EmbeddedSttProvider({
  pythonPath: defaultSidecarPython(),
  modelDir: defaultWhisperModelDir('base'),
  beamSize: 1,
  threads: 0,
  maxQueue: 4,
  requestTimeoutMs: 300_000,
  startTimeoutMs: 300_000,
  logger: pino({ level: 'warn' }),
});
const signal = new AbortController().signal;

/** The voice's speech of `text`, resampled to the 16 kHz the speech to text takes. */
async function speak(style: string, text: string): Promise<Int16Array> {
  const resampler = await createResampler(KOKORO_SAMPLE_RATE_HZ, STT_SAMPLE_RATE_HZ);
  const parts: Buffer[] = [];
  for await (const chunk of kokoro.synthesize({ text, providerVoiceId: style }, signal)) {
    parts.push(resampler.push(chunk.data));
  }
  parts.push(resampler.flush());
  resampler.destroy();
  const pcm = Buffer.concat(parts);
  return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2).slice();
}

const rows: string[] = [];
try {
  await whisper.warmUp();
  for (const style of styles) {
    const voice = kokoroVoiceByStyle(style);
    if (!voice) throw new Error(`${style} is not in the neural catalog`);
    const language = voice.language.slice(0, 2);
    const sentences = NEURAL_SENTENCES[language] ?? [];
    let edits = 0;
    let words = 0;
    for (const sentence of sentences) {
      const heard = await whisper.transcribe(await speak(style, sentence), { language }, signal);
      const reference = normalizeWords(sentence);
      const distance = wordEditDistance(reference, normalizeWords(heard.text));
      edits += distance;
      words += reference.length;
      console.error(`${style}: ${sentence} -> ${heard.text} (${distance}/${reference.length})`);
    }
    const wer = words === 0 ? 0 : edits / words;
    rows.push(`| ${language} | ${style} | ${edits}/${words} | ${(wer * 100).toFixed(1)}% |`);
  }
} finally {
  await whisper.close();
  await pool.close();
  await native.close();
}
console.log('| language | voice | word errors | WER |\n| --- | --- | --- | --- |');
console.log(rows.join('\n'));
