import { useState } from 'react';
import { call, describeError } from '../../api.ts';
import { formatTime, Notice, Page, RoleRequired, useLoad } from '../../components.tsx';
import { hasRole, useOperatorSession } from '../../operator-session.ts';
import { linkProps } from '../../router.ts';
import { AGENT_BUILDER_ROLES } from '../../types.ts';
import { formatCredits } from '../usage.tsx';
import {
  AGENT_SESSIONS_ROLE_NOTICE,
  type AgentSession,
  formatDuration,
} from './agent-session-types.ts';
import './agent-sessions.css';

/**
 * Agents › Sessions: the environment's newest Agent sessions (all Agents, or one),
 * with their state, length, turns, voice latency and charge; each opens its own page with
 * the transcript. For Owner, Admin and Builder.
 */
export function AgentSessionsPage() {
  const me = useOperatorSession();
  if (!hasRole(me, AGENT_BUILDER_ROLES)) {
    return <RoleRequired title="Sessions">{AGENT_SESSIONS_ROLE_NOTICE}</RoleRequired>;
  }
  return (
    <Page title="Sessions">
      <SessionList environment={me.environment} />
    </Page>
  );
}

/** One page of `GET /operator/api/agent-sessions`. */
interface AgentSessionPage {
  sessions: AgentSession[];
  next_cursor: string | null;
}

function SessionList(props: { environment: string }) {
  const [agentId, setAgentId] = useState('');
  const agents = useLoad(() =>
    call<{ agents: { id: string; slug: string }[] }>('GET', '/agents').then((r) => r.agents),
  );
  const [endUser, setEndUser] = useState('');
  const [endUserInput, setEndUserInput] = useState('');
  const [older, setOlder] = useState<AgentSession[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [olderError, setOlderError] = useState<string>();
  const pagePath = (after?: string) => {
    const params = new URLSearchParams();
    if (agentId) params.set('agent_id', agentId);
    if (endUser) params.set('end_user_id', endUser);
    if (after) params.set('cursor', after);
    const query = params.toString();
    return `/agent-sessions${query ? `?${query}` : ''}`;
  };
  const sessions = useLoad(
    () =>
      call<AgentSessionPage>('GET', pagePath()).then((page) => {
        setOlder([]);
        setOlderError(undefined);
        setCursor(page.next_cursor);
        return page.sessions;
      }),
    [agentId, endUser],
  );
  const loadOlder = async () => {
    if (!cursor) return;
    try {
      const page = await call<AgentSessionPage>('GET', pagePath(cursor));
      setOlder((shown) => [...shown, ...page.sessions]);
      setCursor(page.next_cursor);
    } catch (caught) {
      setOlderError(describeError(caught));
    }
  };
  const rows = [...(sessions.data ?? []), ...older];

  return (
    <>
      <p className="muted">
        Conversations with Agents of the {props.environment} environment, newest first. Voice
        latency is from the end of the user’s speech to the agent’s first audio (median of the
        session’s answered turns).
      </p>
      <div className="inline-form">
        <label>
          Agent
          <select value={agentId} onChange={(event) => setAgentId(event.target.value)}>
            <option value="">All Agents</option>
            {(agents.data ?? []).map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.slug}
              </option>
            ))}
          </select>
        </label>
        <label>
          End user
          <input
            name="end_user_id"
            placeholder="Any"
            value={endUserInput}
            onChange={(event) => setEndUserInput(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') setEndUser(endUserInput.trim());
            }}
            onBlur={() => setEndUser(endUserInput.trim())}
          />
        </label>
        <button type="button" onClick={sessions.reload}>
          Refresh
        </button>
      </div>
      {sessions.error ? <Notice kind="error">{sessions.error}</Notice> : null}
      <table className="sessions-table">
        <thead>
          <tr>
            <th>Started</th>
            <th>Agent</th>
            <th>Kind</th>
            <th>State</th>
            <th>Length</th>
            <th>Turns</th>
            <th>Voice latency</th>
            <th>Credits</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((session) => (
            <tr key={session.session_id} data-session-id={session.session_id}>
              <td>
                <a {...linkProps(`/sessions/${session.session_id}`)}>
                  {formatTime(session.created_at)}
                </a>
              </td>
              <td>{session.agent_slug ?? session.agent_id}</td>
              <td>{session.kind}</td>
              <td>
                <StateBadge session={session} />
              </td>
              <td>{formatDuration(session.usage.session_seconds)}</td>
              <td>{session.transcript_count}</td>
              <td>
                {session.latency
                  ? `${session.latency.end_of_speech_to_first_audio_ms.p50} ms`
                  : '—'}
              </td>
              <td>{formatCredits(session.usage.charge.credits)}</td>
            </tr>
          ))}
          {sessions.data && rows.length === 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                No sessions yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {olderError ? <Notice kind="error">{olderError}</Notice> : null}
      {cursor ? (
        <button type="button" className="sessions-older" onClick={() => void loadOlder()}>
          Load older
        </button>
      ) : null}
    </>
  );
}

/** The session's state, and why it ended when it did not end normally. */
export function StateBadge(props: { session: AgentSession }) {
  const { state, end_reason: reason } = props.session;
  return (
    <>
      <span className={`badge badge-session-${state}`}>{state}</span>
      {reason && state === 'failed' ? <span className="muted"> ({reason})</span> : null}
    </>
  );
}
