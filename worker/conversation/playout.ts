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
  /** Sentences in play order (their synthesis order), each with the audio received so far. */
  #sentences: { order: number; text: string; samples: number }[] = [];

  constructor(private readonly sampleRateHz: number) {}

  /**
   * `samples` more audio of the sentence `text` arrived; `order` is its place in synthesis
   * order, which is play order. Sentences are synthesized concurrently (the framework starts
   * the next before the current one is played), so audio of a later sentence can arrive
   * while an earlier one is still coming in: each piece is added to its own sentence.
   */
  addAudio(order: number, text: string, samples: number): void {
    let at = this.#sentences.length;
    while (at > 0 && (this.#sentences[at - 1] as { order: number }).order > order) at--;
    const before = this.#sentences[at - 1];
    if (before?.order === order) before.samples += samples;
    else this.#sentences.splice(at, 0, { order, text: text.trim(), samples });
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
