import { useState } from 'react';
import { call, describeError } from '../../api.ts';
import { formatTime, Notice } from '../../components.tsx';
import { LoadMore, usePagedList, withQuery } from '../../paging.tsx';
import type { Agent } from './agent-types.ts';
import { type DocumentFields, DocumentForm } from './document-form.tsx';
import { DocumentViewer } from './document-viewer.tsx';
import {
  type AgentDocument,
  type DocumentLimits,
  type DocumentListPage,
  END_USER_ID,
  formatCount,
} from './knowledge-types.ts';
import './knowledge.css';

/** Documents a page of the list holds. */
const PAGE_SIZE = 20;

type Filter = 'all' | 'shared' | 'end_user';

/**
 * The Agent's knowledge base (Knowledge): its documents newest first, all of them, the
 * shared ones or one end user's, 20 at a time (Load older); a document opens with its text.
 * Owners, Admins and Builders add documents (typed, or read from a `.txt` or `.md` file),
 * replace and delete them.
 */
export function KnowledgeSection(props: {
  agent: Agent;
  canEdit: boolean;
  /** End users' own documents are for the roles that read end users' data. */
  canReadEndUserData: boolean;
}) {
  const { agent } = props;
  const base = `/agents/${encodeURIComponent(agent.id)}/documents`;
  const [filter, setFilter] = useState<Filter>('all');
  const [endUserInput, setEndUserInput] = useState('');
  const [endUser, setEndUser] = useState('');
  const [limits, setLimits] = useState<DocumentLimits>();
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState(false);
  const [viewing, setViewing] = useState<string>();
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  // One end user's documents are asked for only once a valid id is entered.
  const waiting = filter === 'end_user' && !END_USER_ID.test(endUser);

  const list = usePagedList<AgentDocument>(
    async (cursor) => {
      if (waiting) return { rows: [], next: null };
      const page = await call<DocumentListPage>(
        'GET',
        withQuery(base, {
          limit: String(PAGE_SIZE),
          cursor,
          shared: filter === 'shared' ? 'true' : undefined,
          end_user_id: filter === 'end_user' ? endUser : undefined,
        }),
      );
      setLimits(page.limits);
      return { rows: page.documents, next: page.next_cursor };
    },
    [base, filter, endUser],
  );

  const add = async (fields: DocumentFields) => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await call<{ document: AgentDocument }>('POST', base, fields);
      setAdding(false);
      setMessage(`“${answer.document.title}” was added; conversations can search it now.`);
      list.reload();
    } catch (caught) {
      setError(`The document was not added: ${describeError(caught)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="agent-knowledge" aria-label="Knowledge">
      <h2>Knowledge</h2>
      <DocumentsStatus agent={agent} />
      {limits ? (
        <p className="muted" data-testid="document-limits">
          At most {formatCount(limits.shared_documents)} shared documents and{' '}
          {formatCount(limits.documents_per_end_user)} of each end user; a title of at most{' '}
          {formatCount(limits.title_chars)} characters, a text of at most{' '}
          {formatCount(limits.text_chars)}.
        </p>
      ) : null}
      {message ? (
        <Notice kind="success" onDismiss={() => setMessage(undefined)}>
          {message}
        </Notice>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      {props.canReadEndUserData ? null : (
        <p className="muted" data-testid="shared-only">
          Shared documents only: end users’ own documents are shown to Owners, Admins and Builders.
        </p>
      )}
      <div className="inline-form">
        {props.canReadEndUserData ? (
          <label>
            Show
            <select value={filter} onChange={(event) => setFilter(event.target.value as Filter)}>
              <option value="all">All documents</option>
              <option value="shared">Shared documents</option>
              <option value="end_user">One end user’s documents</option>
            </select>
          </label>
        ) : null}
        {filter === 'end_user' ? (
          <label>
            End user id
            <input
              name="document_end_user_id"
              placeholder="UUID"
              value={endUserInput}
              onChange={(event) => setEndUserInput(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') setEndUser(endUserInput.trim());
              }}
              onBlur={() => setEndUser(endUserInput.trim())}
            />
          </label>
        ) : null}
        {props.canEdit && !adding && limits ? (
          <button type="button" onClick={() => setAdding(true)}>
            Add document
          </button>
        ) : null}
      </div>
      {filter === 'end_user' && endUser !== '' && waiting ? (
        <Notice kind="error">An end user id is a UUID.</Notice>
      ) : null}
      {adding && limits ? (
        <DocumentForm
          mode="add"
          limits={limits}
          busy={busy}
          onSubmit={(fields) => void add(fields)}
          onCancel={() => setAdding(false)}
        />
      ) : null}
      <table className="knowledge-table" aria-label="Documents">
        <thead>
          <tr>
            <th>Title</th>
            <th>Searched in</th>
            <th>Format</th>
            <th>Characters</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {list.rows.map((document) => (
            <tr
              key={document.id}
              data-document-id={document.id}
              className={document.id === viewing ? 'selected' : undefined}
            >
              <td>
                <button
                  type="button"
                  className="link-button"
                  onClick={() => setViewing(document.id)}
                >
                  {document.title}
                </button>
              </td>
              <td>{document.end_user_id ? <code>{document.end_user_id}</code> : 'Shared'}</td>
              <td>{document.content_type === 'text/markdown' ? 'Markdown' : 'Plain text'}</td>
              <td>{formatCount(document.chars)}</td>
              <td>{formatTime(document.updated_at)}</td>
            </tr>
          ))}
          {list.loaded && list.rows.length === 0 && !list.error ? (
            <tr>
              <td colSpan={5} className="muted">
                {waiting ? 'Enter an end user id.' : 'No documents yet.'}
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <LoadMore list={list} />
      {viewing && limits ? (
        <DocumentViewer
          key={viewing}
          agentId={agent.id}
          documentId={viewing}
          limits={limits}
          canEdit={props.canEdit}
          onChanged={(text) => {
            setMessage(text);
            list.reload();
          }}
          onDeleted={(text) => {
            setViewing(undefined);
            setMessage(text);
            list.reload();
          }}
          onClose={() => setViewing(undefined)}
        />
      ) : null}
    </section>
  );
}

/** Whether the published Agent searches its documents, and what the draft would change. */
function DocumentsStatus(props: { agent: Agent }) {
  const published = props.agent.active_publication;
  const on = published?.documents_enabled === true;
  const draftDiffers = props.agent.documents_enabled !== on;
  return (
    <p data-testid="documents-status">
      {published ? (
        on ? (
          <>
            <span className="badge badge-published">Documents on</span> The published Agent searches
            its shared documents and the end user’s own in each conversation.
          </>
        ) : (
          <>
            <span className="badge">Documents off</span> The published Agent does not search these
            documents.
          </>
        )
      ) : (
        <span className="muted">The Agent is not published: no conversation searches these.</span>
      )}
      {draftDiffers ? (
        <span className="muted">
          {' '}
          The draft turns documents {props.agent.documents_enabled ? 'on' : 'off'}; publish to
          apply.
        </span>
      ) : null}
    </p>
  );
}
