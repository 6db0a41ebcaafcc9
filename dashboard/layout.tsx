import type { ReactNode } from 'react';
import { linkProps } from './router.ts';
import { SIDEBAR } from './routes.tsx';
import type { Me } from './types.ts';

/** Sidebar (groups of links), the signed-in member, and the page. */
export function Layout(props: {
  me: Me;
  path: string;
  onSignOut: () => void;
  children: ReactNode;
}) {
  // The current link is the most specific one the path falls under: /voices/new marks
  // "Create voice", not also "Voices".
  const current = SIDEBAR.flatMap((group) => group.links.map((link) => link.path))
    .filter((path) => props.path === path || props.path.startsWith(`${path}/`))
    .sort((a, b) => b.length - a.length)[0];
  const isCurrent = (path: string) => path === current;
  return (
    <div className="layout">
      <nav className="sidebar" aria-label="Dashboard">
        <div className="brand">AWP</div>
        <div className="environment" title="The environment of this address">
          {props.me.environment}
        </div>
        {SIDEBAR.map((group) => (
          <div className="sidebar-group" key={group.group}>
            <div className="sidebar-group-title">{group.group}</div>
            {group.links.map((link) => (
              <a
                key={link.path}
                {...linkProps(link.path)}
                className={isCurrent(link.path) ? 'sidebar-link current' : 'sidebar-link'}
                aria-current={isCurrent(link.path) ? 'page' : undefined}
              >
                {link.label}
              </a>
            ))}
          </div>
        ))}
        <div className="sidebar-footer">
          <div className="member" title={props.me.member.workspace_id}>
            {props.me.member.email}
            <span className="muted"> · {props.me.member.role}</span>
          </div>
          <a className="link-button" {...linkProps('/password')}>
            Password
          </a>{' '}
          <button type="button" className="link-button" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </nav>
      <main className="content">{props.children}</main>
    </div>
  );
}
