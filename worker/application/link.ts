import {
  APPLICATION_LIMITS,
  APPLICATION_PROTOCOL_VERSION,
  APPLICATION_VERSION_ATTRIBUTE,
} from '@awp/protocol';
import {
  type Participant,
  type RemoteParticipant,
  type Room,
  RoomEvent,
  type TextStreamReader,
} from '@livekit/rtc-node';
import type { Logger } from '../../src/worker-boundary/index.ts';
import { encodeMessage, parseJson } from './wire.ts';

/** A message that passed the identity and size checks. */
export interface InboundMessage {
  body: unknown;
  /** Stream attributes (`requestId`, `type`). */
  attributes: Record<string, string>;
}

/** Called with the stream's `requestId` when a message over the limit was dropped. */
export type OversizeHandler = (requestId: string | undefined) => void;

/**
 * The worker's end of the data-only connection with the session's bound backend: who the
 * backend is, whether it is connected and speaks protocol v2 (its capability attribute), text
 * streams to it only, and text streams from it only. Messages from anyone else, or from the
 * backend before it advertised the protocol, are refused and logged.
 */
export class BackendLink {
  #connected = false;
  #advertised = false;
  #epoch = 0;
  readonly #onReady = new Set<(epoch: number) => void>();

  constructor(
    private readonly room: Room,
    readonly backendIdentity: string,
    private readonly log: Logger,
  ) {
    const check = (participant: Participant) => {
      if (participant.identity === backendIdentity) this.#update();
    };
    room.on(RoomEvent.ParticipantConnected, check);
    room.on(RoomEvent.ParticipantAttributesChanged, (_changed, participant) => check(participant));
    room.on(RoomEvent.ParticipantDisconnected, (participant: RemoteParticipant) => {
      if (participant.identity !== backendIdentity) return;
      this.#connected = false;
      this.log.info({ backend: backendIdentity }, 'application backend left');
    });
  }

  /** Advertises protocol v2 on the worker's participant; call before anything is sent. */
  async advertise(): Promise<void> {
    await this.room.localParticipant?.setAttributes({
      [APPLICATION_VERSION_ATTRIBUTE]: String(APPLICATION_PROTOCOL_VERSION),
    });
    this.#advertised = true;
    this.#update();
  }

  /** True while the bound backend is in the room with the capability attribute. */
  get connected(): boolean {
    return this.#connected;
  }

  /** Counts the backend's connections: a rejoin starts a new one. */
  get epoch(): number {
    return this.#epoch;
  }

  /** `fn` runs each time the backend (re)connects with the capability attribute. */
  onReady(fn: (epoch: number) => void): void {
    this.#onReady.add(fn);
  }

  #capable(identity: string): boolean {
    const participant = this.room.remoteParticipants.get(identity);
    return (
      participant?.attributes[APPLICATION_VERSION_ATTRIBUTE] ===
      String(APPLICATION_PROTOCOL_VERSION)
    );
  }

  #update(): void {
    // Nothing is sent before the worker advertised the protocol itself.
    const ready = this.#advertised && this.#capable(this.backendIdentity);
    if (ready === this.#connected) return;
    this.#connected = ready;
    if (!ready) return;
    this.#epoch += 1;
    this.log.info(
      { backend: this.backendIdentity, epoch: this.#epoch },
      'application backend ready',
    );
    for (const fn of this.#onReady) fn(this.#epoch);
  }

  /**
   * Sends one message to the backend only. Throws `PayloadTooLargeError` over the envelope
   * limit (nothing is sent) and rejects when the backend is not reachable.
   */
  async send(
    topic: string,
    body: Record<string, unknown>,
    attributes: Record<string, string>,
  ): Promise<void> {
    const text = encodeMessage(body);
    await this.room.localParticipant?.sendText(text, {
      topic,
      destinationIdentities: [this.backendIdentity],
      attributes,
    });
  }

  /**
   * Receives `topic` from the bound backend: each accepted message is parsed JSON; messages
   * from anyone else, or without the capability attribute, are refused (logged); bodies over
   * the envelope limit are dropped and reported to `onOversize`.
   */
  listen(
    topic: string,
    handler: (message: InboundMessage) => void,
    onOversize: OversizeHandler,
  ): void {
    this.room.registerTextStreamHandler(topic, (reader, participant) => {
      const attributes = reader.info.attributes ?? {};
      if (participant.identity !== this.backendIdentity || !this.#capable(participant.identity)) {
        this.log.warn(
          {
            topic,
            from: participant.identity,
            reason:
              participant.identity === this.backendIdentity
                ? 'no capability attribute'
                : 'not the bound backend',
          },
          'application message refused',
        );
        drain(reader);
        return;
      }
      readLimited(reader)
        .then((text) => {
          if (text === undefined) {
            this.log.warn({ topic, request_id: attributes.requestId }, 'oversized message dropped');
            onOversize(attributes.requestId);
            return;
          }
          const body = parseJson(text);
          if (body === undefined) {
            this.log.warn({ topic }, 'application message is not JSON; dropped');
            return;
          }
          handler({ body, attributes });
        })
        .catch((error: unknown) => this.log.warn({ err: error, topic }, 'stream read failed'));
    });
  }
}

/** The stream's text, or undefined once it passes the envelope limit (the rest is drained). */
async function readLimited(reader: TextStreamReader): Promise<string | undefined> {
  let text = '';
  let over = false;
  for await (const chunk of reader) {
    if (over) continue;
    text += chunk;
    if (text.length > APPLICATION_LIMITS.envelopeChars) {
      over = true;
      text = '';
    }
  }
  return over ? undefined : text;
}

function drain(reader: TextStreamReader): void {
  (async () => {
    for await (const _chunk of reader) {
      // discarded: a refused sender's message
    }
  })().catch(() => {});
}
