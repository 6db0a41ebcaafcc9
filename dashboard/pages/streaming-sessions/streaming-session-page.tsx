import type { ReactNode } from 'react';
import { call } from '../../api.ts';
import { formatTime, Notice, Page, RoleRequired, useLoad } from '../../components.tsx';
import { hasRole, useOperatorSession } from '../../operator-session.ts';
import { LoadMore, usePagedList, withQuery } from '../../paging.tsx';
import { linkProps } from '../../router.ts';
import { SESSION_READER_ROLES } from '../../types.ts';
import { formatDuration } from '../agent-sessions/agent-session-types.ts';
import { formatCredits } from '../usage.tsx';
import {
  STREAMING_ROLE_NOTICE,
  type StreamingSession,
  type StreamingSessionEvent,
  type StreamingSessionEventList,
} from './streaming-types.ts';
import './streaming.css';
import '../agent-sessions/agent-sessions.css';

/**
 * One streaming session: its ids, status and metadata, the usage of its speech requests
 * (by outcome, characters, audio, credits), the count of each event type, and the events
 * in the order they were received (200 at a time, Load more).
 */
export function StreamingSessionPage(props: { sessionId: string }) {
  const me = useOperatorSession();
  if (!hasRole(me, SESSION_READER_ROLES)) {
    return <RoleRequired title="Streaming session">{STREAMING_ROLE_NOTICE}</RoleRequired>;
  }
  return <SessionDetail sessionId={props.sessionId} />;
}

function SessionDetail(props: { sessionId: string }) {
  const path = `/streaming-sessions/${encodeURIComponent(props.sessionId)}`;
  const loaded = useLoad(
    () => call<{ session: StreamingSession }>('GET', path).then((answer) => answer.session),
    [path],
  );
  const session = loaded.data;
  return (
    <Page title="Streaming session">
      <p>
        <a {...linkProps('/streaming-sessions')}>← Streaming sessions</a>
      </p>
      {loaded.error ? <Notice kind="error">{loaded.error}</Notice> : null}
      {session ? (
        <>
          <SessionFacts session={session} />
          <h2>Events</h2>
          <EventCounts byType={session.events.by_type} />
          <Events path={`${path}/events`} />
        </>
      ) : null}
    </Page>
  );
}

function SessionFacts(props: { session: StreamingSession }) {
  const { session } = props;
  const { usage } = session;
  const metadata = Object.keys(session.metadata).length > 0;
  const facts: [string, ReactNode][] = [
    ['Session', <code key="id">{session.id}</code>],
    ['Partner session', session.partner_session_id],
    [
      'Status',
      <span key="status" className={`badge badge-streaming-${session.status}`}>
        {session.status}
      </span>,
    ],
    ['Opened', formatTime(session.created_at)],
    ['Ended', formatTime(session.ended_at)],
    [
      'Requests',
      `${usage.requests} (${usage.succeeded} succeeded, ${usage.failed} failed, ${usage.cancelled} cancelled, ${usage.running} running)`,
    ],
    ['Characters', usage.chars.toLocaleString('en-US')],
    ['Audio', formatDuration(usage.audio_ms / 1000)],
    ['Credits', formatCredits(usage.credits)],
    ['Metadata', metadata ? <code key="metadata">{JSON.stringify(session.metadata)}</code> : '—'],
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

function EventCounts(props: { byType: Record<string, number> }) {
  const types = Object.entries(props.byType);
  if (types.length === 0) return null;
  return (
    <p className="muted" data-testid="event-counts">
      {types.map(([type, count]) => `${type} × ${count}`).join(' · ')}
    </p>
  );
}

function Events(props: { path: string }) {
  const list = usePagedList<StreamingSessionEvent>(
    async (cursor) => {
      const page = await call<StreamingSessionEventList>('GET', withQuery(props.path, { cursor }));
      return { rows: page.events, next: page.next_cursor };
    },
    [props.path],
  );
  return (
    <>
      <table aria-label="Events">
        <thead>
          <tr>
            <th>#</th>
            <th>Type</th>
            <th>Occurred</th>
            <th>Request</th>
            <th>Data</th>
          </tr>
        </thead>
        <tbody>
          {list.rows.map((event) => (
            <tr key={event.seq} data-seq={event.seq}>
              <td>{event.seq}</td>
              <td>
                <code>{event.type}</code>
              </td>
              <td>{formatTime(event.occurred_at)}</td>
              <td>{event.request_id ? <code>{event.request_id}</code> : '—'}</td>
              <td>{event.data ? <code>{JSON.stringify(event.data)}</code> : '—'}</td>
            </tr>
          ))}
          {list.loaded && list.rows.length === 0 && !list.error ? (
            <tr>
              <td colSpan={5} className="muted">
                The client reported no events.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <LoadMore list={list} label="Load more" />
    </>
  );
}
