import type {
  TranscriptionSegment,
  TranscriptionSession,
  TranscriptionSessionDetail,
} from '../../../backend-sdk/src/types/transcription.ts';

// A realtime transcription session's wire shape is the server library's.
export type { TranscriptionSegment, TranscriptionSession, TranscriptionSessionDetail };

/** `GET /operator/api/transcription-sessions`: one page, newest first. */
export interface TranscriptionSessionPage {
  sessions: TranscriptionSession[];
  next_cursor: string | null;
}

/** What a role without access to the sessions is told. */
export const TRANSCRIPTION_ROLE_NOTICE =
  'Realtime transcription sessions and their transcripts are for an organization Owner, Admin or Builder.';

/** An offset in milliseconds as `m:ss.s`. */
export function formatOffset(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${minutes}:${seconds.toFixed(1).padStart(4, '0')}`;
}
