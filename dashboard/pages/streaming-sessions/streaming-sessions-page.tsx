import { useState } from 'react';
import { call } from '../../api.ts';
import { formatTime, Page, RoleRequired } from '../../components.tsx';
import { hasRole, useOperatorSession } from '../../operator-session.ts';
import { LoadMore, usePagedList, withQuery } from '../../paging.tsx';
import { linkProps } from '../../router.ts';
import { SESSION_READER_ROLES } from '../../types.ts';
import { formatDuration } from '../agent-sessions/agent-session-types.ts';
import { formatCredits } from '../usage.tsx';
import {
  STREAMING_ROLE_NOTICE,
  type StreamingSession,
  type StreamingSessionList,
} from './streaming-types.ts';
import './streaming.css';

type StatusFilter = '' | 'active' | 'ended';

/**
 * Voices › Streaming sessions: the playback sessions clients reported
 * (`/v1/streaming-sessions`) in this environment, newest first, 50 at a time (Load older):
 * the usage of the speech requests sent with each one's `partner_session_id` and how many
 * playback events it reported; each opens its own page with the events in order. For
 * Owner, Admin and Builder.
 */
export function StreamingSessionsPage() {
  const me = useOperatorSession();
  if (!hasRole(me, SESSION_READER_ROLES)) {
    return <RoleRequired title="Streaming sessions">{STREAMING_ROLE_NOTICE}</RoleRequired>;
  }
  return (
    <Page title="Streaming sessions">
      <p className="muted">
        Playback sessions your clients report (<code>/v1/streaming-sessions</code>) in the{' '}
        {me.environment} environment, newest first, with the speech requests sent with each one’s
        partner session id.
      </p>
      <StreamingSessions />
    </Page>
  );
}

function StreamingSessions() {
  const [status, setStatus] = useState<StatusFilter>('');
  const list = usePagedList<StreamingSession>(
    async (cursor) => {
      const page = await call<StreamingSessionList>(
        'GET',
        withQuery('/streaming-sessions', { status, cursor }),
      );
      return { rows: page.sessions, next: page.next_cursor };
    },
    [status],
  );
  return (
    <>
      <div className="inline-form">
        <label>
          Status
          <select
            value={status}
            onChange={(event) => setStatus(event.target.value as StatusFilter)}
          >
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="ended">Ended</option>
          </select>
        </label>
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <table aria-label="Streaming sessions">
        <thead>
          <tr>
            <th>Opened</th>
            <th>Partner session</th>
            <th>Status</th>
            <th>Requests</th>
            <th>Characters</th>
            <th>Audio</th>
            <th>Credits</th>
            <th>Events</th>
          </tr>
        </thead>
        <tbody>
          {list.rows.map((session) => (
            <tr key={session.id} data-session-id={session.id}>
              <td>
                <a {...linkProps(`/streaming-sessions/${session.id}`)}>
                  {formatTime(session.created_at)}
                </a>
              </td>
              <td>{session.partner_session_id}</td>
              <td>
                <span className={`badge badge-streaming-${session.status}`}>{session.status}</span>
              </td>
              <td>{session.usage.requests}</td>
              <td>{session.usage.chars.toLocaleString('en-US')}</td>
              <td>{formatDuration(session.usage.audio_ms / 1000)}</td>
              <td>{formatCredits(session.usage.credits)}</td>
              <td>{session.events.count}</td>
            </tr>
          ))}
          {list.loaded && list.rows.length === 0 && !list.error ? (
            <tr>
              <td colSpan={8} className="muted">
                No streaming sessions yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <LoadMore list={list} />
    </>
  );
}
