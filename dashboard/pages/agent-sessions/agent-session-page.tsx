import type { ReactNode } from 'react';
import { call } from '../../api.ts';
import { formatTime, Notice, Page, RoleRequired, useLoad } from '../../components.tsx';
import { hasRole, useOperatorSession } from '../../operator-session.ts';
import { linkProps } from '../../router.ts';
import { AGENT_BUILDER_ROLES } from '../../types.ts';
import { formatCredits } from '../usage.tsx';
import { AgentSessionRecording } from './agent-session-recording.tsx';
import {
  AGENT_SESSIONS_ROLE_NOTICE,
  type AgentSession,
  formatDuration,
  type LatencyStats,
  type TranscriptTurn,
} from './agent-session-types.ts';
import { StateBadge } from './agent-sessions-page.tsx';
import './agent-sessions.css';

/**
 * One Agent session: who and when, what it cost and used, how fast the agent
 * answered (each stage's median, 95th percentile and slowest turn), its recording and the
 * transcript.
 */
export function AgentSessionPage(props: { sessionId: string }) {
  const me = useOperatorSession();
  if (!hasRole(me, AGENT_BUILDER_ROLES)) {
    return <RoleRequired title="Session">{AGENT_SESSIONS_ROLE_NOTICE}</RoleRequired>;
  }
  return <SessionDetail sessionId={props.sessionId} />;
}

function SessionDetail(props: { sessionId: string }) {
  const loaded = useLoad(
    () =>
      call<{ session: AgentSession; transcript: TranscriptTurn[] }>(
        'GET',
        `/agent-sessions/${encodeURIComponent(props.sessionId)}`,
      ),
    [props.sessionId],
  );
  const session = loaded.data?.session;
  return (
    <Page title={session ? `Session with ${session.agent_slug ?? session.agent_id}` : 'Session'}>
      <p>
        <a {...linkProps('/sessions')}>← Sessions</a>
      </p>
      {loaded.error ? <Notice kind="error">{loaded.error}</Notice> : null}
      {session && loaded.data ? (
        <>
          <SessionFacts session={session} />
          <AgentSessionRecording session={session} onDeleted={loaded.reload} />
          <h2>Voice latency</h2>
          <LatencyTable session={session} />
          <h2>Transcript</h2>
          <Transcript turns={loaded.data.transcript} />
        </>
      ) : null}
    </Page>
  );
}

function SessionFacts(props: { session: AgentSession }) {
  const { session } = props;
  const { usage } = session;
  const facts: [string, ReactNode][] = [
    ['Session', <code key="id">{session.session_id}</code>],
    ['Agent', session.agent_slug ?? session.agent_id],
    ['Kind', session.kind],
    ['State', <StateBadge key="state" session={session} />],
    ['End user', session.end_user_id ?? '—'],
    ['Created', formatTime(session.created_at)],
    ['Started', formatTime(session.started_at)],
    ['Ended', formatTime(session.ended_at)],
    ['Length', formatDuration(usage.session_seconds)],
    ['Credits', formatCredits(usage.charge.credits)],
    ['Language model', `${usage.llm_input_tokens} tokens in, ${usage.llm_output_tokens} out`],
    ['Speech synthesis', `${usage.tts_characters} characters`],
    ['Speech recognition', formatDuration(usage.stt_seconds)],
    ['Web searches', String(usage.web_searches)],
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

function LatencyTable(props: { session: AgentSession }) {
  const latency = props.session.latency;
  if (!latency) return <p className="muted">No spoken turn was answered yet.</p>;
  const rows: [string, LatencyStats | null][] = [
    ['End of speech to first audio', latency.end_of_speech_to_first_audio_ms],
    ['Transcript after end of speech', latency.transcription_delay_ms],
    ['Language model, first token', latency.llm_first_token_ms],
    ['Speech synthesis, first audio', latency.tts_first_audio_ms],
  ];
  return (
    <table className="latency-table">
      <caption className="muted">
        Over {latency.turns} answered {latency.turns === 1 ? 'turn' : 'turns'}, in ms
      </caption>
      <thead>
        <tr>
          <th>Stage</th>
          <th>Median</th>
          <th>95th percentile</th>
          <th>Slowest</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([stage, stats]) => (
          <tr key={stage}>
            <td>{stage}</td>
            <td>{stats ? stats.p50 : '—'}</td>
            <td>{stats ? stats.p95 : '—'}</td>
            <td>{stats ? stats.max : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Transcript(props: { turns: TranscriptTurn[] }) {
  if (props.turns.length === 0) return <p className="muted">Nothing was said yet.</p>;
  return (
    <ol className="transcript">
      {props.turns.map((turn) => (
        <li key={turn.id} className={`turn turn-${turn.role}`} data-role={turn.role}>
          <span className="turn-who">{turn.role === 'user' ? 'User' : 'Agent'}</span>
          <span className="turn-text">{turn.text}</span>
          <span className="muted turn-note">{turn.interrupted ? '(interrupted)' : ''}</span>
          <time className="muted turn-time" dateTime={turn.created_at}>
            {new Date(turn.created_at).toLocaleTimeString()}
          </time>
        </li>
      ))}
    </ol>
  );
}
