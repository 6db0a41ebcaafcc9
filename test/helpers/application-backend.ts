// A customer backend in application-session tests: joins the room with the control
// credential over @livekit/rtc-node, advertises protocol v2 (unless told not to) and speaks
// docs/application-protocol.md with the worker, as a test drives it: it records every
// callback and cancel, answers them when the test says so (or through `autoAnswer`), and
// sends commands and waits for their results.

import { randomUUID } from 'node:crypto';
import { type RemoteParticipant, Room, RoomEvent } from '@livekit/rtc-node';

export const VERSION_ATTRIBUTE = 'animated-waffle.application.version';

export interface ReceivedRequest {
  requestId: string;
  type: 'input' | 'tool' | 'transcript' | 'prepare_reply';
  body: Record<string, unknown>;
  /** Stream attributes (`requestId`). */
  attributes: Record<string, string>;
}

export interface ReceivedMessage {
  requestId: string;
  body: Record<string, unknown>;
  attributes: Record<string, string>;
}

/** What the backend answers to a callback, or undefined to leave it to the test. */
export type AutoAnswer = (
  request: ReceivedRequest,
) => { type: 'result' | 'error' | 'progress'; value?: unknown; error?: unknown } | undefined;

export class TestApplicationBackend {
  readonly room = new Room();
  readonly requests: ReceivedRequest[] = [];
  readonly cancels: ReceivedMessage[] = [];
  readonly commandResults: ReceivedMessage[] = [];
  autoAnswer: AutoAnswer | undefined;
  #waiters = new Set<() => void>();

  /**
   * Joins with the control token. `advertise: false` leaves the capability attribute off
   * (a backend of an older protocol).
   */
  static async join(
    url: string,
    token: string,
    options: { advertise?: boolean; autoAnswer?: AutoAnswer } = {},
  ): Promise<TestApplicationBackend> {
    const backend = new TestApplicationBackend();
    backend.autoAnswer = options.autoAnswer;
    await backend.#connect(url, token, options.advertise ?? true);
    return backend;
  }

  async #connect(url: string, token: string, advertise: boolean): Promise<void> {
    const read = (topic: string, sink: (message: ReceivedMessage, from: string) => void): void => {
      this.room.registerTextStreamHandler(topic, (reader, participant) => {
        reader
          .readAll()
          .then((text) => {
            const body = JSON.parse(text) as Record<string, unknown>;
            sink(
              {
                requestId: String(body.requestId),
                body,
                attributes: reader.info.attributes ?? {},
              },
              participant.identity,
            );
            this.#wake();
          })
          .catch(() => {});
      });
    };
    read('application.request', (message, from) => {
      // A backend library ignores callbacks from anyone but the Agent.
      if (!from.startsWith('agent-')) return;
      const request = { ...message, type: message.body.type as ReceivedRequest['type'] };
      this.requests.push(request);
      const answer = this.autoAnswer?.(request);
      if (answer) {
        this.respond(request.requestId, answer.type, answer.value, answer.error).catch(() => {});
      }
    });
    read('application.cancel', (message) => this.cancels.push(message));
    read('application.command_result', (message) => this.commandResults.push(message));
    this.room.on(RoomEvent.ParticipantAttributesChanged, () => this.#wake());
    this.room.on(RoomEvent.ParticipantConnected, () => this.#wake());
    await this.room.connect(url, token, { autoSubscribe: false, dynacast: false });
    if (advertise) {
      await this.room.localParticipant?.setAttributes({ [VERSION_ATTRIBUTE]: '2' });
    }
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
  }

  /** The Agent participant advertising protocol v2, if one is in the room. */
  capableAgent(): RemoteParticipant | undefined {
    return [...this.room.remoteParticipants.values()].find(
      (p) => p.identity.startsWith('agent-') && p.attributes[VERSION_ATTRIBUTE] === '2',
    );
  }

  /** Resolves when `predicate` holds (checked on every message and every 50 ms). */
  waitUntil<T>(
    predicate: () => T | undefined | false,
    timeoutMs: number,
    what: string,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const value = predicate();
        if (value) {
          clearTimeout(timer);
          clearInterval(poll);
          this.#waiters.delete(check);
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        clearInterval(poll);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const poll = setInterval(check, 50);
      this.#waiters.add(check);
      check();
    });
  }

  /** The next callback of `type` not yet seen by an earlier `nextRequest`. */
  async nextRequest(
    type: ReceivedRequest['type'],
    timeoutMs = 30_000,
    taken = new Set<string>(),
  ): Promise<ReceivedRequest> {
    return this.waitUntil(
      () => this.requests.find((r) => r.type === type && !taken.has(r.requestId)),
      timeoutMs,
      `a ${type} callback`,
    );
  }

  /** Sends `application.result` for a callback. */
  async respond(
    requestId: string,
    type: 'result' | 'error' | 'progress',
    value?: unknown,
    error?: unknown,
  ): Promise<void> {
    const body: Record<string, unknown> = { requestId, type };
    if (value !== undefined) body.value = value;
    if (error !== undefined) body.error = error;
    await this.sendRaw('application.result', JSON.stringify(body), { requestId, type });
  }

  /** Sends a command; resolves with its `application.command_result` body. */
  async command(
    command: string,
    args: Record<string, unknown> = {},
    timeoutMs = 30_000,
  ): Promise<Record<string, unknown>> {
    const requestId = randomUUID();
    await this.sendRaw('application.command', JSON.stringify({ requestId, command, ...args }), {
      requestId,
    });
    const result = await this.waitUntil(
      () => this.commandResults.find((r) => r.requestId === requestId),
      timeoutMs,
      `the result of ${command}`,
    );
    return result.body;
  }

  /** Sends any text on `topic` to the Agent. */
  async sendRaw(topic: string, text: string, attributes: Record<string, string>): Promise<void> {
    const agent = [...this.room.remoteParticipants.values()].find((p) =>
      p.identity.startsWith('agent-'),
    );
    if (!agent) throw new Error('no Agent participant in the room');
    await this.room.localParticipant?.sendText(text, {
      topic,
      destinationIdentities: [agent.identity],
      attributes,
    });
  }

  async leave(): Promise<void> {
    await this.room.disconnect();
  }
}
