import { ATTR_AGENT_STATE, ATTR_INPUT_MODE, isAgentIdentityOf } from '@awp/protocol';
import { DisconnectReason, type Participant, ParticipantKind } from 'livekit-client';
import type { AgentState, InputMode } from '../session.ts';

/** The input modes the Agent accepts. */
export const INPUT_MODES: readonly InputMode[] = ['push-to-talk', 'automatic'];

/** The states the Agent announces in its attributes. */
export const AGENT_STATES: readonly AgentState[] = [
  'initializing',
  'listening',
  'thinking',
  'speaking',
];

/** Server-side reasons that mean the conversation ended, not that the connection failed. */
export const ENDED_REASONS = new Set<DisconnectReason | undefined>([
  DisconnectReason.CLIENT_INITIATED,
  DisconnectReason.ROOM_DELETED,
  DisconnectReason.PARTICIPANT_REMOVED,
  DisconnectReason.ROOM_CLOSED,
]);

/**
 * Whether a room participant is the Agent of this session (by kind, or by its identity,
 * which a job that resumed the session after a lost one suffixes with its generation).
 */
export function isAgentParticipant(participant: Participant, sessionId: string): boolean {
  return (
    participant.kind === ParticipantKind.AGENT || isAgentIdentityOf(participant.identity, sessionId)
  );
}

/** The input mode and state the Agent announces in its attributes, when they are valid. */
export function agentAttributes(participant: Participant): {
  inputMode: InputMode | undefined;
  agentState: AgentState | undefined;
} {
  const mode = participant.attributes[ATTR_INPUT_MODE] as InputMode | undefined;
  const state = participant.attributes[ATTR_AGENT_STATE] as AgentState | undefined;
  return {
    inputMode: mode && INPUT_MODES.includes(mode) ? mode : undefined,
    agentState: state && AGENT_STATES.includes(state) ? state : undefined,
  };
}
