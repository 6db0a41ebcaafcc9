import { findKokoroVoice } from '../../src/providers/kokoro/voices.ts';
import { findNativeVoice } from '../../src/providers/native/voices.ts';

/** `STT_LANGUAGE`'s value that asks the engine to detect the language of each utterance. */
export const DETECT_LANGUAGE = 'auto';

/**
 * The language a session's recognizer is told the user speaks (ISO 639-1, as Whisper,
 * Deepgram and the OpenAI endpoint take it), or undefined to let the engine detect it.
 *
 * - `setting` (`STT_LANGUAGE`) wins when set: a code, or `auto` to detect.
 * - Else the language of the Agent's voice when it is one of the built-in voices, whose
 *   language is known (`en-US` gives `en`): users talk to an agent in the language it
 *   speaks.
 * - Else (imported, cloned and vendor voices, which may speak many languages) detection.
 *
 * Naming the language matters for the embedded Whisper: detecting it costs a second pass
 * of the encoder over the utterance's 30 s window, which doubles the time to a transcript.
 */
export function userSpeechLanguage(
  setting: string | undefined,
  voiceId: string,
): string | undefined {
  if (setting !== undefined) return setting === DETECT_LANGUAGE ? undefined : setting;
  const language = (findNativeVoice(voiceId) ?? findKokoroVoice(voiceId))?.language;
  return language === undefined ? undefined : primaryLanguage(language);
}

/** The primary subtag of a BCP 47 tag, lower-cased: `es-419` gives `es`. */
function primaryLanguage(tag: string): string {
  return (tag.split('-')[0] ?? tag).toLowerCase();
}
