import { useState } from 'react';
import { call, describeError } from '../api.ts';
import { Notice, Page, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { linkProps } from '../router.ts';
import { mayReadEndUserData } from '../types.ts';
import {
  AGENT_BUILDER_ROLES,
  type Agent,
  type AgentAvatar,
  type AgentVoice,
  type LlmProviderOption,
} from './agents/agent-types.ts';
import { CardFile } from './agents/card-file.tsx';
import { EditAgentForm } from './agents/edit-agent-form.tsx';
import { KnowledgeSection } from './agents/knowledge-section.tsx';
import { MemorySection } from './agents/memory-section.tsx';
import { PublicationStatus } from './agents/publication-status.tsx';
import { TalkInDemoLink } from './agents/talk-in-demo.tsx';
import './agents/agents.css';

function agentPath(agentId: string, rest = ''): string {
  return `/agents/${encodeURIComponent(agentId)}${rest}`;
}

/**
 * One Agent (`/agents/:agentId`): its slug, draft revision and active publication, the
 * Edit Agent form (voice, language model, switches, character card), its documents
 * (Knowledge) and what it remembers about an end user (Memory). Owners, Admins and Builders
 * save drafts, publish and change documents and memories; other members read the same
 * page with its controls disabled or absent. On the development environment a published
 * Agent can be tried in the demo.
 */
export function AgentPage(props: { agentId: string }) {
  const me = useOperatorSession();
  const canBuild = hasRole(me, AGENT_BUILDER_ROLES);
  const loaded = useLoad(
    () => call<{ agent: Agent }>('GET', agentPath(props.agentId)).then((r) => r.agent),
    [props.agentId],
  );
  const voices = useLoad(() =>
    call<{ voices: AgentVoice[] }>('GET', '/catalog').then((r) => r.voices),
  );
  const models = useLoad(() =>
    call<{ providers: LlmProviderOption[] }>('GET', '/llm-models').then((r) => r.providers),
  );
  const avatars = useLoad(() =>
    call<{ avatars: AgentAvatar[] }>('GET', '/avatars').then((r) => r.avatars),
  );
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const [publishing, setPublishing] = useState(false);
  const [dirty, setDirty] = useState(false);
  const agent = loaded.data?.id === props.agentId ? loaded.data : undefined;

  if (!agent) {
    return (
      <Page title="Agent">
        <BackLink />
        {loaded.error ? (
          <Notice kind="error">{loaded.error}</Notice>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </Page>
    );
  }

  const publish = async () => {
    setPublishing(true);
    setError(undefined);
    setMessage(undefined);
    try {
      const answer = await call<{ agent: Omit<Agent, 'api_ready'> }>(
        'POST',
        agentPath(agent.id, '/publish'),
      );
      setMessage(`Published as version ${answer.agent.active_publication?.version}.`);
      loaded.reload();
    } catch (caught) {
      setError(`The Agent was not published: ${describeError(caught)}`);
    } finally {
      setPublishing(false);
    }
  };

  const voiceName = voices.data?.find((voice) => voice.id === agent.voice_id)?.name;
  const actions = (
    <>
      {canBuild ? (
        <button
          type="button"
          disabled={publishing || dirty}
          title={
            dirty
              ? 'Save or discard the changes first: Publish makes the saved draft live.'
              : undefined
          }
          onClick={() => void publish()}
        >
          Publish
        </button>
      ) : null}
      {me.demo_page && agent.active_publication ? <TalkInDemoLink agentId={agent.id} /> : null}
    </>
  );

  return (
    <Page title={agent.display_name || agent.slug} actions={actions}>
      <BackLink />
      <dl className="agent-summary">
        <dt>Slug</dt>
        <dd>
          <code>{agent.slug}</code>
        </dd>
        <dt>Agent id</dt>
        <dd>
          <code>{agent.id}</code>
        </dd>
        <dt>Voice</dt>
        <dd>
          {agent.voice_id ? (voiceName ?? agent.voice_id) : '—'}
          {agent.api_ready ? null : <span className="muted"> (not usable by clients)</span>}
        </dd>
        <dt>Draft</dt>
        <dd>
          <span className="badge badge-draft" data-draft-revision={agent.draft_revision.version}>
            Revision {agent.draft_revision.version}
          </span>
        </dd>
        <dt>Published</dt>
        <dd>
          <PublicationStatus agent={agent} />
        </dd>
      </dl>
      {message ? (
        <Notice kind="success" onDismiss={() => setMessage(undefined)}>
          {message}
        </Notice>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      {loaded.error ? <Notice kind="error">{loaded.error}</Notice> : null}
      {voices.error ? <Notice kind="error">{voices.error}</Notice> : null}
      {models.error ? <Notice kind="error">{models.error}</Notice> : null}
      {avatars.error ? <Notice kind="error">{avatars.error}</Notice> : null}
      {canBuild ? null : (
        <Notice kind="info">
          Editing and publishing Agents requires an organization Owner, Admin or Builder; you can
          read this Agent.
        </Notice>
      )}
      <CardFile
        agent={agent}
        canEdit={canBuild}
        dirty={dirty}
        onError={(text) => {
          setMessage(undefined);
          setError(text);
        }}
        onImported={(imported) => {
          setError(undefined);
          setMessage(`Card imported as draft revision ${imported.draft_revision.version}.`);
          loaded.reload();
        }}
      />
      {voices.data && models.data && avatars.data ? (
        <EditAgentForm
          key={agent.draft_revision.id}
          agent={agent}
          voices={voices.data}
          providers={models.data}
          avatars={avatars.data}
          canEdit={canBuild}
          onDirtyChange={setDirty}
          onSaved={(saved) => {
            setError(undefined);
            setMessage(`Saved as draft revision ${saved.draft_revision.version}.`);
            loaded.reload();
          }}
        />
      ) : null}
      <KnowledgeSection
        agent={agent}
        canEdit={canBuild}
        canReadEndUserData={mayReadEndUserData(me.member.role)}
      />
      {mayReadEndUserData(me.member.role) ? (
        <MemorySection agent={agent} canEdit={canBuild} />
      ) : null}
    </Page>
  );
}

function BackLink() {
  return (
    <p className="agent-back-link">
      <a {...linkProps('/agents')}>← Agents</a>
    </p>
  );
}
