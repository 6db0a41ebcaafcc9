import { type FormEvent, useState } from 'react';
import { call, describeError } from '../../api.ts';
import { formatTime, Notice, useLoad } from '../../components.tsx';
import { withQuery } from '../../paging.tsx';
import type { Agent } from './agent-types.ts';
import { type AgentMemory, END_USER_ID, formatCount, type MemoryList } from './knowledge-types.ts';
import './knowledge.css';

/**
 * What the Agent remembers about one end user (Memory): look up an end user id to list the
 * facts, oldest first, with who saved each (the Agent in a conversation, or the API) and
 * when. Owners, Admins and Builders add a fact, forget one, or forget everything about the
 * end user (confirmed).
 */
export function MemorySection(props: { agent: Agent; canEdit: boolean }) {
  const { agent } = props;
  const [input, setInput] = useState('');
  const [endUser, setEndUser] = useState<string>();
  const [inputError, setInputError] = useState<string>();

  const lookUp = (event: FormEvent) => {
    event.preventDefault();
    const id = input.trim().toLowerCase();
    if (!END_USER_ID.test(id)) {
      setInputError('An end user id is a UUID, as your backend sends it with session tokens.');
      return;
    }
    setInputError(undefined);
    setEndUser(id);
  };

  return (
    <section className="agent-memory" aria-label="Memory">
      <h2>Memory</h2>
      <MemoryStatus agent={agent} />
      <form className="inline-form" aria-label="Look up an end user" onSubmit={lookUp}>
        <label>
          End user id
          <input
            name="memory_end_user_id"
            placeholder="UUID"
            value={input}
            onChange={(event) => setInput(event.target.value)}
          />
        </label>
        <button type="submit">Look up</button>
      </form>
      {inputError ? <Notice kind="error">{inputError}</Notice> : null}
      {endUser ? (
        <EndUserMemories
          key={endUser}
          agentId={agent.id}
          endUserId={endUser}
          canEdit={props.canEdit}
        />
      ) : null}
    </section>
  );
}

function EndUserMemories(props: { agentId: string; endUserId: string; canEdit: boolean }) {
  const base = `/agents/${encodeURIComponent(props.agentId)}/memories`;
  const listPath = withQuery(base, { end_user_id: props.endUserId });
  const loaded = useLoad(() => call<MemoryList>('GET', listPath), [listPath]);
  const [fact, setFact] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const memories = loaded.data?.memories ?? [];
  const limits = loaded.data?.limits;

  const act = async (work: () => Promise<string>, failure: string) => {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      setMessage(await work());
      loaded.reload();
    } catch (caught) {
      setError(`${failure}: ${describeError(caught)}`);
    } finally {
      setBusy(false);
    }
  };
  const add = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      await call('POST', base, { end_user_id: props.endUserId, text: fact.trim() });
      setFact('');
      return 'The fact was added; the Agent reads it in its next conversation.';
    }, 'The fact was not added');
  };
  const forget = (memory: AgentMemory) =>
    act(async () => {
      await call('DELETE', `${base}/${encodeURIComponent(memory.id)}`);
      return `Forgot “${memory.text}”.`;
    }, 'The fact was not forgotten');
  const forgetAll = () => {
    const question = `Forget everything the Agent remembers about ${props.endUserId}? This cannot be undone.`;
    if (!window.confirm(question)) return;
    void act(async () => {
      const answer = await call<{ forgotten: number }>('DELETE', listPath);
      return `Forgot ${answer.forgotten} ${answer.forgotten === 1 ? 'fact' : 'facts'}.`;
    }, 'Nothing was forgotten');
  };

  return (
    <div className="memory-list" data-end-user-id={props.endUserId}>
      {loaded.error ? <Notice kind="error">{loaded.error}</Notice> : null}
      {message ? (
        <Notice kind="success" onDismiss={() => setMessage(undefined)}>
          {message}
        </Notice>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <table aria-label="Memories">
        <thead>
          <tr>
            <th>Fact</th>
            <th>Saved by</th>
            <th>Saved</th>
            {props.canEdit ? <th /> : null}
          </tr>
        </thead>
        <tbody>
          {memories.map((memory) => (
            <tr key={memory.id} data-memory-id={memory.id}>
              <td>{memory.text}</td>
              <td>{memory.source === 'agent' ? 'Agent' : 'API'}</td>
              <td>{formatTime(memory.created_at)}</td>
              {props.canEdit ? (
                <td>
                  <button
                    type="button"
                    className="small"
                    disabled={busy}
                    onClick={() => void forget(memory)}
                  >
                    Forget
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
          {loaded.data && memories.length === 0 ? (
            <tr>
              <td colSpan={props.canEdit ? 4 : 3} className="muted">
                The Agent remembers nothing about this end user.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {limits ? (
        <p className="muted">
          At most {formatCount(limits.memories_per_end_user)} facts about each end user (saving one
          more forgets the oldest), each at most {formatCount(limits.memory_chars)} characters.
        </p>
      ) : null}
      {props.canEdit && limits ? (
        <div className="knowledge-actions">
          <form className="inline-form" aria-label="Add a fact" onSubmit={add}>
            <label>
              Fact
              <input
                name="fact"
                maxLength={limits.memory_chars}
                placeholder="Prefers to be called Sam."
                value={fact}
                onChange={(event) => setFact(event.target.value)}
              />
            </label>
            <button type="submit" disabled={busy || fact.trim() === ''}>
              Add fact
            </button>
          </form>
          <button
            type="button"
            className="danger"
            disabled={busy || memories.length === 0}
            onClick={forgetAll}
          >
            Forget all
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** Whether the published Agent remembers, and what the draft would change. */
function MemoryStatus(props: { agent: Agent }) {
  const published = props.agent.active_publication;
  const on = published?.memory_enabled === true;
  const draftDiffers = props.agent.memory_enabled !== on;
  return (
    <p data-testid="memory-status">
      {published ? (
        on ? (
          <>
            <span className="badge badge-published">Memory on</span> The published Agent remembers
            facts about each end user across conversations.
          </>
        ) : (
          <>
            <span className="badge">Memory off</span> The published Agent neither reads nor saves
            these facts.
          </>
        )
      ) : (
        <span className="muted">The Agent is not published: no conversation reads these.</span>
      )}
      {draftDiffers ? (
        <span className="muted">
          {' '}
          The draft turns memory {props.agent.memory_enabled ? 'on' : 'off'}; publish to apply.
        </span>
      ) : null}
    </p>
  );
}
