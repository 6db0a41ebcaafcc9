import { call } from '../../api.ts';
import { formatTime, Page, RoleRequired } from '../../components.tsx';
import { hasRole, useOperatorSession } from '../../operator-session.ts';
import { LoadMore, usePagedList, withQuery } from '../../paging.tsx';
import { linkProps } from '../../router.ts';
import { END_USER_DATA_READER_ROLES } from '../../types.ts';
import { formatDuration } from '../agent-sessions/agent-session-types.ts';
import { formatCredits } from '../usage.tsx';
import {
  TRANSCRIPTION_ROLE_NOTICE,
  type TranscriptionSession,
  type TranscriptionSessionPage,
} from './transcription-types.ts';
import './transcription.css';

/**
 * Agents › Transcription: the environment's realtime transcription sessions, newest first,
 * 50 at a time (Load older), with their status, language, audio and charge; each opens its
 * own page with the timed transcript. For Owner, Admin and Builder.
 */
export function TranscriptionPage() {
  const me = useOperatorSession();
  if (!hasRole(me, END_USER_DATA_READER_ROLES)) {
    return <RoleRequired title="Transcription">{TRANSCRIPTION_ROLE_NOTICE}</RoleRequired>;
  }
  return (
    <Page title="Transcription">
      <p className="muted">
        Realtime transcription sessions (<code>/v1/realtime-transcription</code>) of the{' '}
        {me.environment} environment, newest first.
      </p>
      <TranscriptionSessions />
    </Page>
  );
}

function TranscriptionSessions() {
  const list = usePagedList<TranscriptionSession>(async (cursor) => {
    const page = await call<TranscriptionSessionPage>(
      'GET',
      withQuery('/transcription-sessions', { cursor }),
    );
    return { rows: page.sessions, next: page.next_cursor };
  }, []);
  return (
    <>
      <div className="inline-form">
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <table className="transcription-table" aria-label="Transcription sessions">
        <thead>
          <tr>
            <th>Started</th>
            <th>Status</th>
            <th>Language</th>
            <th>Audio</th>
            <th>Credits</th>
            <th>Partner session</th>
          </tr>
        </thead>
        <tbody>
          {list.rows.map((session) => (
            <tr key={session.session_id} data-session-id={session.session_id}>
              <td>
                <a {...linkProps(`/transcription/${session.session_id}`)}>
                  {formatTime(session.started_at)}
                </a>
              </td>
              <td>
                <TranscriptionStatus session={session} />
              </td>
              <td>{session.language ?? 'detected'}</td>
              <td>{formatDuration(session.audio_ms / 1000)}</td>
              <td>{session.cost ? formatCredits(session.cost.credits) : '—'}</td>
              <td>{session.partner_session_id ?? '—'}</td>
            </tr>
          ))}
          {list.loaded && list.rows.length === 0 && !list.error ? (
            <tr>
              <td colSpan={6} className="muted">
                No transcription sessions yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {list.loaded ? null : list.error ? null : <p className="loading">Loading…</p>}
      <LoadMore list={list} />
    </>
  );
}

/** The session's status, and the error code of a failed one. */
export function TranscriptionStatus(props: { session: TranscriptionSession }) {
  const { status, error_code: code } = props.session;
  return (
    <>
      <span className={`badge badge-transcription-${status}`}>{status}</span>
      {code ? <span className="muted"> ({code})</span> : null}
    </>
  );
}
