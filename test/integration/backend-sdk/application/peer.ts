// The worker's side of docs/application-protocol.md, played by a small @livekit/rtc-node
// participant: it joins as the room's Agent (or as an impostor), advertises the protocol
// version, sends callbacks and cancellations to the backend, and records what the backend
// sends back, so tests can assert the backend library's wire behaviour exactly.

import { randomUUID } from 'node:crypto';
import { Room } from '@livekit/rtc-node';
import { AccessToken, RoomServiceClient } from 'livekit-server-sdk';
import type { ApplicationControl } from '../../../../backend-sdk/src/application/index.ts';
import type { LivekitServer } from '../../../helpers/livekit.ts';
import { waitFor } from '../../../helpers/wait.ts';

export const VERSION_ATTRIBUTE = 'animated-waffle.application.version';

/** One text stream the peer received. */
export interface Received {
  topic: string;
  from: string;
  attributes: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * A control credential as the api mints it (docs/application-protocol.md, "Starting"): room
 * only, data and own attributes, no audio or video.
 */
export async function mintControl(
  lk: LivekitServer,
  room: string,
  identity: string,
): Promise<ApplicationControl> {
  const token = new AccessToken(lk.apiKey, lk.apiSecret, { identity, ttl: '5m' });
  token.addGrant({
    roomJoin: true,
    room,
    canPublish: false,
    canSubscribe: false,
    canPublishData: true,
    canUpdateOwnMetadata: true,
  });
  return {
    livekit_url: lk.url,
    room,
    token: await token.toJwt(),
    identity,
    expires_at: new Date(Date.now() + 5 * 60_000).toISOString(),
  };
}

export interface PeerOptions {
  identity: string;
  /** Join as an Agent participant (kind agent). Default true. */
  agent?: boolean;
  /** The protocol version attribute to advertise; undefined advertises none. Default '2'. */
  version?: string | undefined;
}

export class WorkerPeer {
  readonly received: Received[] = [];
  readonly room = new Room();

  private constructor(readonly identity: string) {}

  static async join(
    lk: LivekitServer,
    roomName: string,
    options: PeerOptions,
  ): Promise<WorkerPeer> {
    const peer = new WorkerPeer(options.identity);
    const token = new AccessToken(lk.apiKey, lk.apiSecret, { identity: options.identity });
    if (options.agent ?? true) token.kind = 'agent';
    token.addGrant({
      roomJoin: true,
      room: roomName,
      canPublishData: true,
      canUpdateOwnMetadata: true,
    });
    // Streams open in the order they were sent, but their bodies can finish reading out of
    // order at an rtc-node receiver: each is recorded in opening order.
    let opened = Promise.resolve();
    for (const topic of ['application.result', 'application.command']) {
      peer.room.registerTextStreamHandler(topic, (reader, info) => {
        const text = reader.readAll();
        // Handled at once: a body cut by the room closing must not wait unhandled in the chain.
        text.catch(() => undefined);
        opened = opened.then(async () => {
          try {
            peer.received.push({
              topic,
              from: info.identity,
              attributes: reader.info.attributes ?? {},
              body: JSON.parse(await text) as Record<string, unknown>,
            });
          } catch {
            // A stream that failed to read or parse is not recorded.
          }
        });
      });
    }
    await peer.room.connect(lk.url, await token.toJwt(), { autoSubscribe: false, dynacast: false });
    const version = 'version' in options ? options.version : '2';
    if (version !== undefined) {
      await peer.room.localParticipant?.setAttributes({ [VERSION_ATTRIBUTE]: version });
    }
    return peer;
  }

  /** The backend participant's attributes as this peer sees them. */
  attributesOf(identity: string): Record<string, string> | undefined {
    return this.room.remoteParticipants.get(identity)?.attributes;
  }

  async sendRaw(
    to: string,
    topic: string,
    text: string,
    attributes: Record<string, string>,
  ): Promise<void> {
    await this.room.localParticipant?.sendText(text, {
      topic,
      destinationIdentities: [to],
      attributes,
    });
  }

  /** Sends an `application.request`; returns its requestId. */
  async request(
    to: string,
    type: string,
    payload: Record<string, unknown>,
    requestId: string = randomUUID(),
  ): Promise<string> {
    await this.sendRaw(to, 'application.request', JSON.stringify({ requestId, type, ...payload }), {
      requestId,
    });
    return requestId;
  }

  async cancel(to: string, requestId: string, reason: string): Promise<void> {
    await this.sendRaw(to, 'application.cancel', JSON.stringify({ requestId, reason }), {
      requestId,
    });
  }

  async commandResult(to: string, body: Record<string, unknown> & { requestId: string }) {
    await this.sendRaw(to, 'application.command_result', JSON.stringify(body), {
      requestId: body.requestId,
    });
  }

  /** `application.result` bodies for `requestId`, in arrival order. */
  results(requestId: string): Received[] {
    return this.received.filter(
      (r) => r.topic === 'application.result' && r.body.requestId === requestId,
    );
  }

  /** Waits until `count` results of `requestId` arrived; returns them. */
  waitResults(requestId: string, count = 1): Promise<Received[]> {
    return waitFor(() => this.results(requestId).length >= count && this.results(requestId), {
      what: `${count} application.result for ${requestId}`,
    });
  }

  /** Waits for the next `application.command` with `command`, after `skip` earlier ones. */
  waitCommand(command: string, skip = 0): Promise<Received> {
    return waitFor(
      () =>
        this.received.filter(
          (r) => r.topic === 'application.command' && r.body.command === command,
        )[skip],
      { what: `application.command ${command} #${skip + 1}` },
    );
  }

  async leave(): Promise<void> {
    await this.room.disconnect();
  }
}

/** Removes a participant from its room on the server (the backend's connection drops). */
export async function kick(lk: LivekitServer, room: string, identity: string): Promise<void> {
  const service = new RoomServiceClient(lk.httpUrl, lk.apiKey, lk.apiSecret);
  await service.removeParticipant(room, identity);
}

/** A logger that keeps what it was told, to assert refusals were logged. */
export function recordingLogger() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    warn(fields: Record<string, unknown>, message: string) {
      lines.push({ fields, message });
    },
    debug(fields: Record<string, unknown>, message: string) {
      lines.push({ fields, message });
    },
  };
}
