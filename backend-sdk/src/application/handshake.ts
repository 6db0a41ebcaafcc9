/**
 * The capability handshake: the session's worker is the Agent participant advertising
 * protocol 2 in its attributes. A backend that finds none in time fails closed.
 */

import { type Participant, ParticipantKind, type Room, RoomEvent } from '@livekit/rtc-node';
import { ApplicationError } from './errors.ts';
import { APPLICATION_PROTOCOL_VERSION, APPLICATION_VERSION_ATTRIBUTE } from './protocol.ts';

/**
 * Whether `participant` is an Agent speaking this protocol version.
 *
 * @example
 * ```ts
 * const worker = [...room.remoteParticipants.values()].find(isApplicationAgent);
 * ```
 */
export function isApplicationAgent(participant: Participant | undefined): boolean {
  return (
    participant !== undefined &&
    participant.kind === ParticipantKind.AGENT &&
    participant.attributes[APPLICATION_VERSION_ATTRIBUTE] === String(APPLICATION_PROTOCOL_VERSION)
  );
}

/** The Agent of the room that speaks protocol 2, if one is there now. */
export function currentAgent(room: Room): Participant | undefined {
  for (const participant of room.remoteParticipants.values()) {
    if (isApplicationAgent(participant)) return participant;
  }
  return undefined;
}

function describeOthers(room: Room): string {
  const agents = [...room.remoteParticipants.values()].filter(
    (p) => p.kind === ParticipantKind.AGENT,
  );
  if (agents.length === 0) return 'no Agent participant joined';
  return agents
    .map((p) => {
      const version = p.attributes[APPLICATION_VERSION_ATTRIBUTE];
      return `Agent ${p.identity} advertises ${version === undefined ? 'no protocol version' : `version ${JSON.stringify(version)}`}`;
    })
    .join('; ');
}

/**
 * Resolves with the Agent participant advertising protocol 2, waiting for one to join or to
 * set its attribute; rejects with `unsupported_worker` after `timeoutMs`, or with `aborted`.
 *
 * @example
 * ```ts
 * const agent = await waitForApplicationAgent(room, 15_000);
 * ```
 */
export function waitForApplicationAgent(
  room: Room,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Participant> {
  return new Promise((resolve, reject) => {
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      room.off(RoomEvent.ParticipantConnected, check);
      room.off(RoomEvent.ParticipantAttributesChanged, check);
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const check = () => {
      const agent = currentAgent(room);
      if (agent) finish(() => resolve(agent));
    };
    const onAbort = () =>
      finish(() =>
        reject(new ApplicationError({ code: 'aborted', message: 'the join was aborted' })),
      );
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new ApplicationError({
              code: 'unsupported_worker',
              message: `no worker speaking application protocol ${APPLICATION_PROTOCOL_VERSION} within ${timeoutMs} ms (${describeOthers(room)})`,
            }),
          ),
        ),
      timeoutMs,
    );
    room.on(RoomEvent.ParticipantConnected, check);
    room.on(RoomEvent.ParticipantAttributesChanged, check);
    if (signal?.aborted) onAbort();
    else {
      signal?.addEventListener('abort', onAbort, { once: true });
      check();
    }
  });
}
