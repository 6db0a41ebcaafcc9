import type { Agent } from './agent-types.ts';

/** The active publication: its version and revision, and whether the draft moved on. */
export function PublicationStatus(props: { agent: Agent }) {
  const publication = props.agent.active_publication;
  if (!publication) return <span className="muted">Not published</span>;
  const behind = publication.revision.id !== props.agent.draft_revision.id;
  return (
    <>
      <span className="badge badge-published" data-published-version={publication.version}>
        Version {publication.version}
      </span>{' '}
      <span className="muted">
        (revision {publication.revision.version}
        {behind ? ', draft has changes' : ''})
      </span>
    </>
  );
}
