import type { ReactNode } from 'react';
import { call } from '../../api.ts';
import { formatTime, Notice, Page, RoleRequired, useLoad } from '../../components.tsx';
import { hasRole, useOperatorSession } from '../../operator-session.ts';
import { linkProps } from '../../router.ts';
import { END_USER_DATA_READER_ROLES } from '../../types.ts';
import { formatDuration } from '../agent-sessions/agent-session-types.ts';
import { formatCredits } from '../usage.tsx';
import { TranscriptionStatus } from './transcription-page.tsx';
import {
  formatOffset,
  TRANSCRIPTION_ROLE_NOTICE,
  type TranscriptionSegment,
  type TranscriptionSessionDetail,
} from './transcription-types.ts';
import '../agent-sessions/agent-sessions.css';
import './transcription.css';

/**
 * One realtime transcription session: its status, language, audio, cost and ids, and the
 * final transcript segment by segment with each one's place in the audio.
 */
export function TranscriptionSessionPage(props: { sessionId: string }) {
  const me = useOperatorSession();
  if (!hasRole(me, END_USER_DATA_READER_ROLES)) {
    return <RoleRequired title="Transcription session">{TRANSCRIPTION_ROLE_NOTICE}</RoleRequired>;
  }
  return <SessionDetail sessionId={props.sessionId} />;
}

function SessionDetail(props: { sessionId: string }) {
  const loaded = useLoad(
    () =>
      call<{ session: TranscriptionSessionDetail }>(
        'GET',
        `/transcription-sessions/${encodeURIComponent(props.sessionId)}`,
      ).then((answer) => answer.session),
    [props.sessionId],
  );
  const session = loaded.data;
  return (
    <Page title="Transcription session">
      <p>
        <a {...linkProps('/transcription')}>← Transcription</a>
      </p>
      {loaded.error ? <Notice kind="error">{loaded.error}</Notice> : null}
      {session ? (
        <>
          <SessionFacts session={session} />
          <h2>Transcript</h2>
          <Segments segments={session.segments} active={session.status === 'active'} />
        </>
      ) : null}
    </Page>
  );
}

function SessionFacts(props: { session: TranscriptionSessionDetail }) {
  const { session } = props;
  const facts: [string, ReactNode][] = [
    ['Session', <code key="id">{session.session_id}</code>],
    ['Status', <TranscriptionStatus key="status" session={session} />],
    ['Language', session.language ?? 'detected'],
    ['Audio format', session.audio_format],
    ['Audio', formatDuration(session.audio_ms / 1000)],
    [
      'Cost',
      session.cost
        ? `${formatCredits(session.cost.credits)} credits (${session.cost.amount.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 6 })})`
        : 'not yet charged',
    ],
    ['Partner session', session.partner_session_id ?? '—'],
    ['Audit id', <code key="audit">{session.audit_id}</code>],
    ['Started', formatTime(session.started_at)],
    ['Ended', formatTime(session.ended_at)],
  ];
  return (
    <dl className="session-facts">
      {facts.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd data-fact={term}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Segments(props: { segments: TranscriptionSegment[]; active: boolean }) {
  if (props.segments.length === 0) {
    return (
      <p className="muted">
        {props.active ? 'Nothing final was heard yet.' : 'Nothing was transcribed.'}
      </p>
    );
  }
  return (
    <ol className="transcription-segments">
      {props.segments.map((segment) => (
        <li key={segment.segment_id} data-segment-id={segment.segment_id}>
          <span className="muted segment-time">
            {formatOffset(segment.start_ms)}–{formatOffset(segment.end_ms)}
          </span>
          <span className="segment-text">{segment.text}</span>
          <span className="muted segment-language">{segment.language ?? ''}</span>
        </li>
      ))}
    </ol>
  );
}
