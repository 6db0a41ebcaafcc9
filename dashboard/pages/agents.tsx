import { useState } from 'react';
import { call, describeError } from '../api.ts';
import { formatTime, Notice, Page, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { linkProps } from '../router.ts';
import { AGENT_BUILDER_ROLES, type Agent, type AgentVoice } from './agents/agent-types.ts';
import { CreateAgentForm } from './agents/create-agent-form.tsx';
import { PublicationStatus } from './agents/publication-status.tsx';
import { TalkInDemoLink } from './agents/talk-in-demo.tsx';
import './agents/agents.css';

/**
 * Agents: the environment's Agents with their voice and their draft and published
 * versions. Owners, Admins and Builders create Agents and publish their drafts; members
 * see the list. On the development environment a published Agent can be tried in the
 * demo page.
 */
export function AgentsPage() {
  const me = useOperatorSession();
  const canBuild = hasRole(me, AGENT_BUILDER_ROLES);
  const agents = useLoad(() => call<{ agents: Agent[] }>('GET', '/agents').then((r) => r.agents));
  const voices = useLoad(() =>
    call<{ voices: AgentVoice[] }>('GET', '/catalog').then((r) => r.voices),
  );
  const [error, setError] = useState<string>();
  const [message, setMessage] = useState<string>();
  const [publishing, setPublishing] = useState<string>();
  const voiceNames = new Map((voices.data ?? []).map((voice) => [voice.id, voice.name]));

  const publish = async (agent: Agent) => {
    setPublishing(agent.id);
    setError(undefined);
    setMessage(undefined);
    try {
      const answer = await call<{ agent: Agent }>(
        'POST',
        `/agents/${encodeURIComponent(agent.id)}/publish`,
      );
      setMessage(
        `Agent “${agent.slug}” published as version ${answer.agent.active_publication?.version}.`,
      );
      agents.reload();
    } catch (caught) {
      setError(`Agent “${agent.slug}” was not published: ${describeError(caught)}`);
    } finally {
      setPublishing(undefined);
    }
  };

  return (
    <Page title="Agents">
      <p className="muted">
        Agents of the {me.environment} environment, the one this address serves. Sessions run an
        Agent’s published version; edits make a new draft until it is published again.
      </p>
      {canBuild ? (
        <>
          {voices.error ? <Notice kind="error">{voices.error}</Notice> : null}
          {voices.data && voices.data.length === 0 ? (
            <Notice kind="info">No voice is ready to speak yet: an Agent needs one.</Notice>
          ) : null}
          {voices.data && voices.data.length > 0 ? (
            <CreateAgentForm
              voices={voices.data}
              onCreated={(agent) => {
                setError(undefined);
                setMessage(`Agent “${agent.slug}” created as a draft; publish it to use it.`);
                agents.reload();
              }}
            />
          ) : null}
        </>
      ) : (
        <Notice kind="info">
          Creating and publishing Agents requires an organization Owner, Admin or Builder.
        </Notice>
      )}
      {message ? (
        <Notice kind="success" onDismiss={() => setMessage(undefined)}>
          {message}
        </Notice>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      {agents.error ? <Notice kind="error">{agents.error}</Notice> : null}
      <table className="agents-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Slug</th>
            <th>Voice</th>
            <th>Draft</th>
            <th>Published</th>
            <th>Updated</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(agents.data ?? []).map((agent) => (
            <tr key={agent.id} data-agent-id={agent.id} data-slug={agent.slug}>
              <td>
                <a {...linkProps(`/agents/${encodeURIComponent(agent.id)}`)}>
                  {agent.display_name || agent.slug}
                </a>
              </td>
              <td className="agent-slug">
                <code>{agent.slug}</code>
              </td>
              <td>
                {agent.voice_id ? (voiceNames.get(agent.voice_id) ?? agent.voice_id) : '—'}
                {agent.api_ready ? null : <span className="muted"> (not usable by clients)</span>}
              </td>
              <td>
                <span className="badge badge-draft">Revision {agent.draft_revision.version}</span>
              </td>
              <td>
                <PublicationStatus agent={agent} />
              </td>
              <td>{formatTime(agent.updated_at)}</td>
              <td>
                <div className="agent-actions">
                  {canBuild ? (
                    <button
                      type="button"
                      disabled={publishing === agent.id}
                      onClick={() => void publish(agent)}
                    >
                      Publish
                    </button>
                  ) : null}
                  {me.demo_page && agent.active_publication ? (
                    <TalkInDemoLink agentId={agent.id} />
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
          {agents.data && agents.data.length === 0 ? (
            <tr>
              <td colSpan={7} className="muted">
                No Agents yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </Page>
  );
}
