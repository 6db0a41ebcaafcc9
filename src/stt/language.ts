import { findKokoroVoice } from '../tts/providers/kokoro/voices.ts';
import { findNativeVoice } from '../tts/providers/native/voices.ts';

/** `STT_LANGUAGE`'s value that asks the engine to detect the language of each utterance. */
export const DETECT_LANGUAGE = 'auto';

/**
 * The language a session's recognizer is told the user speaks (ISO 639-1, as Whisper,
 * Deepgram and the OpenAI endpoint take it), or undefined to let the engine detect it.
 *
 * - The Agent's own `language` (`agentLanguage`, BCP 47) wins when it has one: the Agent's
 *   builder said what its users speak.
 * - Else `setting` (`STT_LANGUAGE`) when set: a code, or `auto` to detect.
 * - Else the language of the Agent's voice: a built-in voice's own (`en-US` gives `en`),
 *   or that of a cloned voice's recordings (`recordings()`, asked only for voices that are
 *   not built in) when they are all in one language. Users talk to an agent in the
 *   language it speaks.
 * - Else (imported and vendor voices, which may speak many languages, and voices
 *   recorded in several) detection.
 *
 * Naming the language matters for the embedded Whisper: detecting it costs a second pass
 * of the encoder over the utterance's 30 s window, which doubles the time to a transcript.
 */
export async function userSpeechLanguage(
  setting: string | undefined,
  voiceId: string,
  recordings: () => Promise<readonly string[]>,
  agentLanguage: string | null = null,
): Promise<string | undefined> {
  if (agentLanguage !== null) return primaryLanguage(agentLanguage);
  if (setting !== undefined) return setting === DETECT_LANGUAGE ? undefined : setting;
  const builtIn = (findNativeVoice(voiceId) ?? findKokoroVoice(voiceId))?.language;
  if (builtIn !== undefined) return primaryLanguage(builtIn);
  const languages = new Set((await recordings()).map(primaryLanguage));
  return languages.size === 1 ? [...languages][0] : undefined;
}

/** The primary subtag of a BCP 47 tag, lower-cased: `es-419` gives `es`. */
function primaryLanguage(tag: string): string {
  return (tag.split('-')[0] ?? tag).toLowerCase();
}
