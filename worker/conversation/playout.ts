/**
 * Our own account of what the agent actually said: the text and audio length of every
 * synthesized sentence, in the order they are played. When LiveKit reports how far an
 * interrupted reply played (its audio output's playback position), the spoken text is the
 * sentences fully played plus the played share of the current one, cut back to whole words.
 *
 * LiveKit's own synchronized transcript is not used for this: with sentence-by-sentence
 * synthesis it came back empty for interrupted replies, and the turn was lost.
 */
export class PlayoutLedger {
  #sentences: { key: string; text: string; samples: number }[] = [];

  constructor(private readonly sampleRateHz: number) {}

  /** `samples` more audio of the sentence `text` (synthesis request `key`) reached the player. */
  addAudio(key: string, text: string, samples: number): void {
    const last = this.#sentences.at(-1);
    if (last?.key === key) last.samples += samples;
    else this.#sentences.push({ key, text: text.trim(), samples });
  }

  /**
   * A playout (one reply, or one segment of it) ended after `playbackPositionS` seconds of
   * its audio. Returns the text spoken up to there. Sentences it played are forgotten; when
   * it was interrupted, so is everything synthesized after (it is never played).
   */
  finish(playbackPositionS: number, interrupted: boolean): string {
    // Rounding of the reported position: a sentence within 50 ms of its end counts as played.
    let remaining = Math.max(0, playbackPositionS) * this.sampleRateHz + this.sampleRateHz / 20;
    const spoken: string[] = [];
    while (this.#sentences.length > 0 && remaining > 0) {
      const sentence = this.#sentences[0] as { text: string; samples: number };
      if (remaining < sentence.samples) {
        if (interrupted) {
          const part = wholeWords(sentence.text, remaining / sentence.samples);
          if (part) spoken.push(part);
        }
        break;
      }
      spoken.push(sentence.text);
      remaining -= sentence.samples;
      this.#sentences.shift();
    }
    if (interrupted) this.#sentences = [];
    return spoken.join(' ').trim();
  }
}

/** The words of `text` entirely within its first `fraction` of characters. */
export function wholeWords(text: string, fraction: number): string {
  const chars = Math.floor(text.length * Math.min(1, Math.max(0, fraction)));
  if (chars >= text.length) return text;
  // A word counts once its last character is played.
  const cut = text.slice(0, chars + 1);
  const end = /\s/.test(cut.at(-1) ?? '') ? cut.length : cut.search(/\s+\S*$/);
  return end <= 0 ? '' : text.slice(0, end).trim();
}
