import { useState } from 'react';
import { call, describeError } from '../../api.ts';
import { formatTime, Notice, useLoad } from '../../components.tsx';
import { type DocumentFields, DocumentForm } from './document-form.tsx';
import {
  type AgentDocument,
  type AgentDocumentWithText,
  type DocumentLimits,
  formatCount,
} from './knowledge-types.ts';

/**
 * One document with its text. Those who edit the Agent replace it (title, format, text;
 * the owner stays) or delete it after a confirmation.
 */
export function DocumentViewer(props: {
  agentId: string;
  documentId: string;
  limits: DocumentLimits;
  canEdit: boolean;
  onChanged: (message: string) => void;
  onDeleted: (message: string) => void;
  onClose: () => void;
}) {
  const path = `/agents/${encodeURIComponent(props.agentId)}/documents/${encodeURIComponent(props.documentId)}`;
  const loaded = useLoad(
    () => call<{ document: AgentDocumentWithText }>('GET', path).then((r) => r.document),
    [path],
  );
  const [replacing, setReplacing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const doc = loaded.data?.id === props.documentId ? loaded.data : undefined;

  const replace = async (fields: DocumentFields) => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await call<{ document: AgentDocument }>('PUT', path, fields);
      setReplacing(false);
      loaded.reload();
      props.onChanged(`“${answer.document.title}” was replaced and reindexed.`);
    } catch (caught) {
      setError(`The document was not replaced: ${describeError(caught)}`);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!doc) return;
    const question = `Delete “${doc.title}”? Conversations stop finding it at once; it cannot be recovered.`;
    if (!window.confirm(question)) return;
    setBusy(true);
    setError(undefined);
    try {
      await call('DELETE', path);
      props.onDeleted(`“${doc.title}” was deleted.`);
    } catch (caught) {
      setError(`The document was not deleted: ${describeError(caught)}`);
      setBusy(false);
    }
  };

  return (
    <article className="card knowledge-document" aria-label="Document">
      {loaded.error ? <Notice kind="error">{loaded.error}</Notice> : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      {!doc ? (
        loaded.error ? null : (
          <p className="muted">Loading…</p>
        )
      ) : replacing ? (
        <DocumentForm
          mode="replace"
          limits={props.limits}
          initial={doc}
          busy={busy}
          onSubmit={(fields) => void replace(fields)}
          onCancel={() => setReplacing(false)}
        />
      ) : (
        <>
          <header className="knowledge-document-header">
            <h3>{doc.title}</h3>
            <div className="knowledge-actions">
              {props.canEdit ? (
                <>
                  <button type="button" disabled={busy} onClick={() => setReplacing(true)}>
                    Replace
                  </button>
                  <button
                    type="button"
                    className="danger"
                    disabled={busy}
                    onClick={() => void remove()}
                  >
                    Delete
                  </button>
                </>
              ) : null}
              <button type="button" onClick={props.onClose}>
                Close
              </button>
            </div>
          </header>
          <p className="muted">
            {doc.end_user_id ? `End user ${doc.end_user_id}` : 'Shared'} ·{' '}
            {doc.content_type === 'text/markdown' ? 'Markdown' : 'Plain text'} ·{' '}
            {formatCount(doc.chars)} characters · updated {formatTime(doc.updated_at)}
          </p>
          <pre className="knowledge-text" data-testid="document-text">
            {doc.text}
          </pre>
        </>
      )}
    </article>
  );
}
