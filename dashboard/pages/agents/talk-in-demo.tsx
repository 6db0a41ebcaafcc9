/** The demo page with this Agent chosen (`/demo?agent=ID`), where the demo page is served. */
export function TalkInDemoLink(props: { agentId: string }) {
  return (
    <a className="button" href={`/demo?agent=${encodeURIComponent(props.agentId)}`}>
      Talk in demo
    </a>
  );
}
