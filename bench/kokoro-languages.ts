/**
 * Neural voices in each language espeak-ng phonemises for Kokoro: word error rate of the
 * embedded Whisper (base, multilingual, the language set) on two sentences per language,
 * spoken by one voice each through KokoroProvider. Needs scripts/install-kokoro.sh and
 * scripts/install-whisper.sh. Run: `node --import tsx bench/kokoro-languages.ts [voice...]`
 * (Kokoro style names, default one per language). Prints a Markdown table; decisions in
 * docs/decisions.md ("Neural voices").
 */
import { pino } from 'pino';
import { loadSttConfig } from '../src/stt/config.ts';
import { defaultSidecarPython, defaultWhisperModelDir } from '../src/stt/embedded/paths.ts';
import { EmbeddedSttProvider } from '../src/stt/embedded/provider.ts';
import { kokoroVoiceByStyle } from '../src/tts/providers/kokoro/index.ts';
import { NEURAL_SENTENCES } from '../test/helpers/neural-sentences.ts';
import { normalizeWords, wordEditDistance } from '../test/helpers/wer.ts';
import { startKokoroSpeech } from './lib/kokoro-speech.ts';

const DEFAULT_VOICES = ['af_heart', 'ef_dora', 'ff_siwis', 'if_sara', 'pf_dora', 'hf_alpha'];
const styles = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_VOICES;

const speech = startKokoroSpeech();
const whisper = new EmbeddedSttProvider({
  pythonPath: defaultSidecarPython(),
  modelDir: defaultWhisperModelDir('base'),
  beamSize: 1,
  threads: 0,
  minWindowS: loadSttConfig({}).WHISPER_MIN_WINDOW_S,
  maxQueue: 4,
  requestTimeoutMs: 300_000,
  startTimeoutMs: 300_000,
  logger: pino({ level: 'warn' }),
});
const signal = new AbortController().signal;

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
      const heard = await whisper.transcribe(
        await speech.speak(style, sentence),
        { language },
        signal,
      );
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
  await speech.close();
}
console.log('| language | voice | word errors | WER |\n| --- | --- | --- | --- |');
console.log(rows.join('\n'));
