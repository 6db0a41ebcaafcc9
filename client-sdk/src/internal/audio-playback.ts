import type { RemoteAudioTrack } from 'livekit-client';

/** Plays the Agent's audio tracks through hidden audio elements; `muted` silences them. */
export class AudioPlayback {
  readonly #elements = new Map<RemoteAudioTrack, HTMLMediaElement>();
  #muted = false;

  get muted(): boolean {
    return this.#muted;
  }

  set muted(value: boolean) {
    this.#muted = value;
    for (const element of this.#elements.values()) element.muted = value;
  }

  attach(track: RemoteAudioTrack): void {
    if (this.#elements.has(track)) return;
    const element = track.attach();
    element.muted = this.#muted;
    element.hidden = true;
    document.body.appendChild(element);
    this.#elements.set(track, element);
  }

  detach(track: RemoteAudioTrack): void {
    const element = this.#elements.get(track);
    if (!element) return;
    track.detach(element);
    element.remove();
    this.#elements.delete(track);
  }

  detachAll(): void {
    for (const track of [...this.#elements.keys()]) this.detach(track);
  }
}
