import { type FormEvent, useId, useState } from 'react';
import { Notice } from '../../components.tsx';
import {
  type AgentDocumentContentType,
  charCount,
  type DocumentLimits,
  END_USER_ID,
  formatCount,
} from './knowledge-types.ts';

/** What the form submits: a create's body (the owner only when adding) or a replace's. */
export interface DocumentFields {
  title: string;
  text: string;
  content_type: AgentDocumentContentType;
  end_user_id?: string;
}

/** The first line of a file name without its extension, as a title. */
function titleOf(fileName: string): string {
  return fileName.replace(/\.(txt|md|markdown)$/i, '').trim();
}

/**
 * A document's title, format and text, typed or read from a `.txt` or `.md` file in the
 * browser (the file is never uploaded as such: its text fills the form). Adding also asks
 * whose it is: shared by every end user, or one end user's own.
 */
export function DocumentForm(props: {
  mode: 'add' | 'replace';
  limits: DocumentLimits;
  initial?: { title: string; text: string; content_type: AgentDocumentContentType };
  busy: boolean;
  onSubmit: (fields: DocumentFields) => void;
  onCancel: () => void;
}) {
  const fileId = useId();
  const textId = useId();
  const [title, setTitle] = useState(props.initial?.title ?? '');
  const [text, setText] = useState(props.initial?.text ?? '');
  const [format, setFormat] = useState<AgentDocumentContentType>(
    props.initial?.content_type ?? 'text/plain',
  );
  const [owner, setOwner] = useState<'shared' | 'end_user'>('shared');
  const [endUserId, setEndUserId] = useState('');
  const [fileError, setFileError] = useState<string>();
  const chars = charCount(text);
  const tooLong = chars > props.limits.text_chars;
  const badOwner = owner === 'end_user' && !END_USER_ID.test(endUserId.trim());
  const label = props.mode === 'add' ? 'Add document' : 'Replace document';

  const readFile = async (file: File) => {
    setFileError(undefined);
    // A UTF-8 character takes at most 4 bytes: a larger file cannot fit.
    if (file.size > props.limits.text_chars * 4) {
      setFileError(`${file.name} is larger than a document may be.`);
      return;
    }
    const content = await file.text();
    if (charCount(content) > props.limits.text_chars) {
      setFileError(
        `${file.name} has more than ${formatCount(props.limits.text_chars)} characters.`,
      );
      return;
    }
    setText(content);
    setFormat(/\.(md|markdown)$/i.test(file.name) ? 'text/markdown' : 'text/plain');
    if (title.trim() === '') setTitle(titleOf(file.name).slice(0, props.limits.title_chars));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit({
      title: title.trim(),
      text,
      content_type: format,
      ...(props.mode === 'add' && owner === 'end_user'
        ? { end_user_id: endUserId.trim().toLowerCase() }
        : {}),
    });
  };

  return (
    <form
      // Replacing happens inside the document's own card.
      className={props.mode === 'add' ? 'card form-grid knowledge-form' : 'form-grid'}
      aria-label={label}
      onSubmit={submit}
    >
      <h3>{label}</h3>
      <label>
        Title
        <input
          name="title"
          required
          maxLength={props.limits.title_chars}
          value={title}
          onChange={(event) => setTitle(event.target.value)}
        />
      </label>
      {props.mode === 'add' ? (
        <div className="knowledge-owner">
          <label>
            Searched in
            <select
              value={owner}
              onChange={(event) => setOwner(event.target.value as 'shared' | 'end_user')}
            >
              <option value="shared">Every end user’s conversations (shared)</option>
              <option value="end_user">One end user’s conversations</option>
            </select>
          </label>
          {owner === 'end_user' ? (
            <label>
              End user id
              <input
                name="end_user_id"
                placeholder="UUID"
                value={endUserId}
                onChange={(event) => setEndUserId(event.target.value)}
              />
            </label>
          ) : null}
        </div>
      ) : null}
      <label>
        Format
        <select
          value={format}
          onChange={(event) => setFormat(event.target.value as AgentDocumentContentType)}
        >
          <option value="text/plain">Plain text</option>
          <option value="text/markdown">Markdown</option>
        </select>
      </label>
      <label htmlFor={fileId}>
        Text from a file (.txt or .md)
        <input
          id={fileId}
          type="file"
          accept=".txt,.md,.markdown,text/plain,text/markdown"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) void readFile(file);
          }}
        />
      </label>
      {fileError ? <Notice kind="error">{fileError}</Notice> : null}
      <div className="knowledge-field">
        <label htmlFor={textId}>Text</label>
        <textarea
          id={textId}
          name="text"
          rows={12}
          aria-describedby={`${textId}-count`}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <span
          id={`${textId}-count`}
          className={tooLong ? 'knowledge-count over' : 'knowledge-count muted'}
        >
          {formatCount(chars)} of {formatCount(props.limits.text_chars)} characters
        </span>
      </div>
      <div className="knowledge-actions">
        <button
          type="submit"
          className="primary"
          disabled={props.busy || title.trim() === '' || text.trim() === '' || tooLong || badOwner}
        >
          {props.mode === 'add' ? 'Add document' : 'Save document'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
