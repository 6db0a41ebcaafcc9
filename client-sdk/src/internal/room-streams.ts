import {
  ATTR_SEGMENT_ID,
  ATTR_TRANSCRIBED_TRACK_ID,
  ATTR_TRANSCRIPTION_FINAL,
  TOPIC_DECLINED,
  TOPIC_ERROR,
  TOPIC_TRANSCRIPT,
  TOPIC_TRANSCRIPTION,
} from '@awp/protocol';
import type { Room } from 'livekit-client';
import { ConversationError } from '../errors.ts';
import type { ConversationEventMap, TranscriptRole } from '../events.ts';
import { CaptionSegments } from './captions.ts';

type Emit = <K extends keyof ConversationEventMap>(
  name: K,
  payload: ConversationEventMap[K],
) => void;

export const STREAM_TOPICS = [TOPIC_TRANSCRIPTION, TOPIC_TRANSCRIPT, TOPIC_DECLINED, TOPIC_ERROR];

/**
 * Maps the worker's text streams to events: `lk.transcription` to `transcriptProgress`,
 * `awp.transcript` to `transcript`, `awp.declined` to `declined`, `awp.error` to `error`.
 * `isAgent` says whether an identity is the conversation's Agent: only it may send turns
 * and captions.
 */
export function registerStreams(room: Room, emit: Emit, isAgent: (identity: string) => boolean) {
  const roleOf = (identity: string, trackId: string | undefined): TranscriptRole => {
    if (identity === room.localParticipant.identity) return 'user';
    // The worker may send the user's captions itself; the transcribed track then says whose.
    if (trackId && room.localParticipant.trackPublications.has(trackId)) return 'user';
    return 'agent';
  };
  const captions = new CaptionSegments((event) => emit('transcriptProgress', event));
  const protocolError = (topic: string, detail: string) =>
    emit('error', new ConversationError('protocol_error', `${topic}: ${detail}`));

  room.registerTextStreamHandler(TOPIC_TRANSCRIPTION, (reader, sender) => {
    // Captions come from the Agent, of its speech or, under the user's identity, of theirs
    // (LiveKit keeps another sender's identity on a stream only when an agent sends it).
    // Anyone else in the room (an application's backend) cannot caption as the Agent.
    if (!isAgent(sender.identity) && sender.identity !== room.localParticipant.identity) return;
    const attributes = reader.info.attributes ?? {};
    const segmentId = attributes[ATTR_SEGMENT_ID] ?? reader.info.id;
    const role = roleOf(sender.identity, attributes[ATTR_TRANSCRIBED_TRACK_ID]);
    const markedFinal = attributes[ATTR_TRANSCRIPTION_FINAL] === 'true';
    captions.read(reader, segmentId, role, markedFinal).catch(() => {
      // A stream cut by a reconnection leaves its caption incomplete; the transcript follows.
    });
  });

  const readJson = (topic: string, handle: (value: Record<string, unknown>) => void) => {
    room.registerTextStreamHandler(topic, (reader, sender) => {
      if (!isAgent(sender.identity)) return;
      void reader
        .readAll()
        .then((text) => {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            protocolError(topic, 'not JSON');
            return;
          }
          if (typeof value !== 'object' || value === null) {
            protocolError(topic, 'not a JSON object');
            return;
          }
          handle(value as Record<string, unknown>);
        })
        .catch(() => {
          // The stream was cut (reconnection): the worker retries by id.
        });
    });
  };

  readJson(TOPIC_TRANSCRIPT, (value) => {
    const { id, role, text, final } = value;
    if (
      typeof id !== 'string' ||
      (role !== 'user' && role !== 'agent') ||
      typeof text !== 'string'
    ) {
      protocolError(TOPIC_TRANSCRIPT, 'expected {id, role, text, final}');
      return;
    }
    emit('transcript', { id, role, text, final: final !== false });
  });
  readJson(TOPIC_DECLINED, (value) => {
    emit('declined', { reason: typeof value.reason === 'string' ? value.reason : '' });
  });
  readJson(TOPIC_ERROR, (value) => {
    const code = typeof value.code === 'string' ? value.code : 'internal_error';
    const detail = typeof value.detail === 'string' ? value.detail : 'The Agent reported an error.';
    emit('error', new ConversationError(code, detail, { retryable: value.retryable === true }));
  });
}

export function unregisterStreams(room: Room): void {
  for (const topic of STREAM_TOPICS) room.unregisterTextStreamHandler(topic);
}
