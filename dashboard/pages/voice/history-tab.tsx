import { call, OperatorApiError } from '../../api.ts';
import { formatTime, Notice, useLoad } from '../../components.tsx';
import { useOperatorSession } from '../../operator-session.ts';
import type { CloneAttempt, Voice, VoiceGeneration } from '../../types.ts';
import { providerLabel } from './route-labels.tsx';
import { useAction, voicePath } from './use-action.ts';

const ATTEMPT_STATES: Readonly<Record<CloneAttempt['state'], { label: string; tone: string }>> = {
  queued: { label: 'Queued', tone: 'cloning' },
  running: { label: 'Running', tone: 'cloning' },
  succeeded: { label: 'Succeeded', tone: 'ready' },
  failed: { label: 'Failed', tone: 'failed' },
};

const OPERATIONS: Readonly<Record<CloneAttempt['operation'], string>> = {
  create: 'Create',
  append: 'Append recordings',
  rebuild: 'Rebuild',
  derive: 'Derive (native)',
};

/**
 * History (spec rule 11): every clone attempt, newest first, with its failure summary and
 * technical details; Try again resubmits the voice's Failed routes as one group. Below, the
 * voice's Playground generations, each playable.
 */
export function HistoryTab(props: {
  voice: Voice;
  history: CloneAttempt[];
  canManage: boolean;
  onChanged: () => void;
}) {
  const { voice } = props;
  const retry = useAction(props.onChanged);
  const failed = voice.routes.filter((route) => route.state === 'failed');
  const attempts = [...props.history].reverse();

  return (
    <>
      {props.canManage && failed.length > 0 ? (
        <div className="retry-bar">
          <span>
            {failed.length === 1 ? 'One route' : `${failed.length} routes`} failed:{' '}
            {failed.map((route) => providerLabel(route.provider)).join(', ')}.
          </span>
          <button
            type="button"
            className="primary"
            disabled={retry.busy}
            onClick={() => void retry.run(() => call('POST', voicePath(voice.id, '/retry')))}
          >
            Try again
          </button>
        </div>
      ) : null}
      {retry.error ? (
        <Notice kind="error" onDismiss={retry.clearError}>
          {retry.error}
        </Notice>
      ) : null}
      <h2>Clone attempts</h2>
      <table className="history-table">
        <thead>
          <tr>
            <th>Time</th>
            <th>Provider</th>
            <th>Operation</th>
            <th>State</th>
            <th>Failure</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt) => (
            <AttemptRow key={attempt.id} attempt={attempt} />
          ))}
          {attempts.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                No clone attempts yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <Generations voiceId={voice.id} canManage={props.canManage} />
    </>
  );
}

function AttemptRow(props: { attempt: CloneAttempt }) {
  const { attempt } = props;
  const state = ATTEMPT_STATES[attempt.state];
  return (
    <tr data-attempt-id={attempt.id} data-provider={attempt.provider}>
      <td>{formatTime(attempt.created_at)}</td>
      <td>{providerLabel(attempt.provider)}</td>
      <td>{OPERATIONS[attempt.operation] ?? attempt.operation}</td>
      <td>
        <span className={`badge badge-state badge-${state.tone}`}>{state.label}</span>
      </td>
      <td>
        {attempt.failure_summary ? (
          <div className="failure-summary">{attempt.failure_summary}</div>
        ) : null}
        <details className="technical-details">
          <summary>Technical details</summary>
          <dl>
            {attempt.failure_detail ? (
              <>
                <dt>Failure detail</dt>
                <dd>
                  <pre>{readableDetail(attempt.failure_detail)}</pre>
                </dd>
              </>
            ) : null}
            <dt>Recordings sent</dt>
            <dd>
              {attempt.sample_ids.length > 0
                ? attempt.sample_ids.map((id) => <code key={id}>{id}</code>)
                : '—'}
            </dd>
            <dt>Provider voice id</dt>
            <dd>{attempt.provider_voice_id ? <code>{attempt.provider_voice_id}</code> : '—'}</dd>
            <dt>Requested by</dt>
            <dd>{attempt.requested_by}</dd>
            <dt>Finished</dt>
            <dd>{formatTime(attempt.finished_at)}</dd>
            <dt>Attempt id</dt>
            <dd>
              <code>{attempt.id}</code>
            </dd>
          </dl>
        </details>
      </td>
    </tr>
  );
}

/** A failure detail as stored: JSON indented for reading, any other text as it is. */
function readableDetail(detail: string): string {
  try {
    return JSON.stringify(JSON.parse(detail), null, 2);
  } catch {
    return detail;
  }
}

/**
 * The voice's Playground generations with a player each. A deployment without the
 * generations API (404 other than `voice_not_found`) shows nothing.
 */
function Generations(props: { voiceId: string; canManage: boolean }) {
  const me = useOperatorSession();
  const generations = useLoad(
    () =>
      call<{ generations: VoiceGeneration[] }>(
        'GET',
        voicePath(props.voiceId, '/generations'),
      ).then(
        (r) => r.generations,
        (error: unknown) => {
          if (
            error instanceof OperatorApiError &&
            error.status === 404 &&
            error.code !== 'voice_not_found'
          ) {
            return null;
          }
          throw error;
        },
      ),
    [props.voiceId],
  );
  const remove = useAction(generations.reload);
  // Nothing while the first answer is pending, nor when the deployment has no such API.
  if (generations.data === null || (generations.data === undefined && !generations.error)) {
    return null;
  }
  return (
    <section className="history-generations">
      <h2>Generations</h2>
      {generations.error ? <Notice kind="error">{generations.error}</Notice> : null}
      {remove.error ? (
        <Notice kind="error" onDismiss={remove.clearError}>
          {remove.error}
        </Notice>
      ) : null}
      {generations.data?.length === 0 ? (
        <p className="muted">No Playground generations with this voice yet.</p>
      ) : null}
      {(generations.data ?? []).map((generation) => (
        <div
          className="card history-generation"
          key={generation.id}
          data-generation-id={generation.id}
        >
          <p>{generation.text}</p>
          <div className="muted">
            {generation.output_format} · {(generation.duration_ms / 1000).toFixed(1)} s ·{' '}
            {providerLabel(generation.provider)}
            {generation.model ? ` · ${generation.model}` : ''} · {generation.created_by} ·{' '}
            {formatTime(generation.created_at)}
          </div>
          {/* biome-ignore lint/a11y/useMediaCaption: generated speech; its text is above */}
          <audio controls preload="none" src={generation.audio_url} />
          {props.canManage || generation.created_by === me.member.email ? (
            <div>
              <button
                type="button"
                className="danger"
                disabled={remove.busy}
                onClick={() =>
                  void remove.run(() =>
                    call(
                      'DELETE',
                      voicePath(props.voiceId, `/generations/${encodeURIComponent(generation.id)}`),
                    ),
                  )
                }
              >
                Delete
              </button>
            </div>
          ) : null}
        </div>
      ))}
    </section>
  );
}
