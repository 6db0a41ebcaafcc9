import { useState } from 'react';
import { call, describeError } from '../api.ts';
import { formatTime, Notice, Page, RoleRequired, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { KEY_MANAGER_ROLES, type Usage, type UsageModelCall, type UsageRequest } from '../types.ts';

/** Credits as `awp credit show` counts them (1,000 credits = 1 USD), with digit grouping. */
export function formatCredits(credits: number): string {
  return credits.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/**
 * Usage (Config › Usage): the workspace's credit balance, what running requests hold, what
 * finished requests were charged and what was granted; the recent grants; and the newest
 * synthesis requests and language-model calls of this environment with who made them, each
 * list with "Load older" for the rows before.
 */
export function UsagePage() {
  const me = useOperatorSession();
  if (!hasRole(me, KEY_MANAGER_ROLES)) {
    return (
      <RoleRequired title="Usage">
        Usage is for an organization Owner, Admin or Builder.
      </RoleRequired>
    );
  }
  return (
    <Page title="Usage">
      <UsageReport environment={me.environment} />
    </Page>
  );
}

function UsageReport(props: { environment: string }) {
  const usage = useLoad(() => call<Usage>('GET', '/usage'));
  if (usage.error) return <Notice kind="error">{usage.error}</Notice>;
  const data = usage.data;
  if (!data) return <p className="loading">Loading…</p>;
  return (
    <>
      <div className="card usage-credits">
        <div>
          <div className="muted">Balance</div>
          <div className="usage-balance" data-testid="balance">
            {formatCredits(data.credits.balance)}
          </div>
          <div className="muted">credits (1,000 credits = 1 USD)</div>
        </div>
        <dl>
          <dt>Reserved</dt>
          <dd data-testid="reserved">{formatCredits(data.credits.reserved)}</dd>
          <dt>Charged</dt>
          <dd data-testid="charged">{formatCredits(data.credits.charged)}</dd>
          <dt>Granted</dt>
          <dd data-testid="granted">{formatCredits(data.credits.granted)}</dd>
        </dl>
      </div>
      <h2>Recent grants</h2>
      <table aria-label="Recent grants">
        <thead>
          <tr>
            <th>Granted</th>
            <th>Credits</th>
            <th>Reason</th>
            <th>Note</th>
          </tr>
        </thead>
        <tbody>
          {data.grants.map((grant, index) => (
            // Grants are listed newest first and never change, so the position is stable.
            // biome-ignore lint/suspicious/noArrayIndexKey: the answer has no grant id
            <tr key={index}>
              <td>{formatTime(grant.created_at)}</td>
              <td>
                {grant.credits > 0 ? '+' : ''}
                {formatCredits(grant.credits)}
              </td>
              <td>{grant.reason.replace('_', ' ')}</td>
              <td>{grant.note ?? ''}</td>
            </tr>
          ))}
          {data.grants.length === 0 ? (
            <tr>
              <td colSpan={4} className="muted">
                No grants yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <Requests
        first={data.requests}
        cursor={data.requests_next_cursor}
        environment={props.environment}
      />
      <ModelCalls
        first={data.model_calls}
        cursor={data.model_calls_next_cursor}
        environment={props.environment}
      />
    </>
  );
}

/** One page of `GET /usage/requests` or `GET /usage/model-calls`, as {@link useOlder} reads it. */
interface OlderPage<T> {
  rows: T[];
  next: string | null;
}

/** The rows after the first page of a list, fetched a page at a time. */
interface Older<T> {
  rows: T[];
  cursor: string | null;
  loading: boolean;
  error: string | undefined;
  loadOlder: () => Promise<void>;
}

/** Pages a list past its first page: `first` is the cursor the first page ended with. */
function useOlder<T>(
  first: string | null,
  fetchPage: (cursor: string) => Promise<OlderPage<T>>,
): Older<T> {
  const [rows, setRows] = useState<T[]>([]);
  const [cursor, setCursor] = useState(first);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const loadOlder = async () => {
    if (!cursor || loading) return;
    setLoading(true);
    setError(undefined);
    try {
      const page = await fetchPage(cursor);
      setRows((shown) => [...shown, ...page.rows]);
      setCursor(page.next);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setLoading(false);
    }
  };
  return { rows, cursor, loading, error, loadOlder };
}

/** Under a table: why the last page failed, and "Load older" while there are older rows. */
function LoadOlder<T>(props: { older: Older<T>; list: string }) {
  const { older } = props;
  return (
    <>
      {older.error ? <Notice kind="error">{older.error}</Notice> : null}
      {older.cursor ? (
        <button
          type="button"
          className="usage-older"
          data-testid={`${props.list}-older`}
          disabled={older.loading}
          onClick={() => void older.loadOlder()}
        >
          Load older
        </button>
      ) : null}
    </>
  );
}

/** The synthesis requests of this environment, newest first. */
function Requests(props: { first: UsageRequest[]; cursor: string | null; environment: string }) {
  const older = useOlder(props.cursor, (cursor) =>
    call<{ requests: UsageRequest[]; next_cursor: string | null }>(
      'GET',
      `/usage/requests?cursor=${encodeURIComponent(cursor)}`,
    ).then((page) => ({ rows: page.requests, next: page.next_cursor })),
  );
  const rows = [...props.first, ...older.rows];
  return (
    <>
      <h2>Recent requests</h2>
      <p className="muted">
        The synthesis requests of the {props.environment} environment, newest first.
      </p>
      <table aria-label="Recent requests">
        <thead>
          <tr>
            <th>Time</th>
            <th>Request</th>
            <th>Voice</th>
            <th>Characters</th>
            <th>Credits</th>
            <th>Status</th>
            <th>Caller</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((request) => (
            <tr key={request.request_id} data-request-id={request.request_id}>
              <td>{formatTime(request.created_at)}</td>
              <td>
                <code>{request.request_id}</code>
              </td>
              <td>
                <code>{request.voice_id}</code>
              </td>
              <td>{request.characters.toLocaleString('en-US')}</td>
              <td>{formatCredits(request.credits)}</td>
              <td>{request.status}</td>
              <td>{request.caller ?? '—'}</td>
            </tr>
          ))}
          {rows.length === 0 ? (
            <tr>
              <td colSpan={7} className="muted">
                No requests yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <LoadOlder older={older} list="requests" />
    </>
  );
}

/** The language-model calls of text conversations, newest first (Agent sessions are on Sessions). */
function ModelCalls(props: {
  first: UsageModelCall[];
  cursor: string | null;
  environment: string;
}) {
  const older = useOlder(props.cursor, (cursor) =>
    call<{ model_calls: UsageModelCall[]; next_cursor: string | null }>(
      'GET',
      `/usage/model-calls?cursor=${encodeURIComponent(cursor)}`,
    ).then((page) => ({ rows: page.model_calls, next: page.next_cursor })),
  );
  const calls = [...props.first, ...older.rows];
  return (
    <>
      <h2>Recent language-model calls</h2>
      <p className="muted">
        The calls of text conversations with Agents of the {props.environment} environment, newest
        first. What live sessions use is on Agents › Sessions.
      </p>
      <table aria-label="Recent language-model calls">
        <thead>
          <tr>
            <th>Time</th>
            <th>Agent</th>
            <th>Model</th>
            <th>Tokens in</th>
            <th>Tokens out</th>
            <th>Credits</th>
            <th>Status</th>
            <th>Caller</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((entry) => (
            <tr key={entry.request_id} data-model-call-id={entry.request_id}>
              <td>{formatTime(entry.created_at)}</td>
              <td>{entry.agent_slug ?? entry.agent_id ?? entry.source}</td>
              <td>
                {entry.llm_provider} {entry.llm_model}
              </td>
              <td>{entry.input_tokens.toLocaleString('en-US')}</td>
              <td>{entry.output_tokens.toLocaleString('en-US')}</td>
              <td>{formatCredits(entry.credits)}</td>
              <td>{entry.status}</td>
              <td>{entry.caller ?? '—'}</td>
            </tr>
          ))}
          {calls.length === 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                No calls yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <LoadOlder older={older} list="model-calls" />
    </>
  );
}
