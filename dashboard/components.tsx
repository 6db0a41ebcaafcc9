import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { describeError } from './api.ts';

/** A page's heading and content; the document's title is the page's (API keys, Voices, ...). */
export function Page(props: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = props.title;
  }, [props.title]);
  return (
    <section className="page">
      <header className="page-header">
        <h1>{props.title}</h1>
        {props.actions ? <div className="page-actions">{props.actions}</div> : null}
      </header>
      {props.children}
    </section>
  );
}

/** A page a role may not use: its title and why (the operator API refuses it too). */
export function RoleRequired(props: { title: string; children: ReactNode }) {
  return (
    <Page title={props.title}>
      <Notice kind="info">{props.children}</Notice>
    </Page>
  );
}

/** A message under a form or above a table. */
export function Notice(props: {
  kind: 'error' | 'success' | 'warning' | 'info';
  children: ReactNode;
  onDismiss?: () => void;
}) {
  return (
    <div
      className={`notice notice-${props.kind}`}
      role={props.kind === 'error' ? 'alert' : 'status'}
    >
      <div className="notice-body">{props.children}</div>
      {props.onDismiss ? (
        <button type="button" className="link-button" onClick={props.onDismiss}>
          Dismiss
        </button>
      ) : null}
    </div>
  );
}

/** Tabs: buttons with `role=tab`; the caller renders the selected panel. */
export function Tabs<T extends string>(props: {
  tabs: readonly { id: T; label: string }[];
  selected: T;
  onSelect: (id: T) => void;
}) {
  return (
    <div className="tabs" role="tablist">
      {props.tabs.map((tab) => (
        <button
          key={tab.id}
          type="button"
          role="tab"
          aria-selected={tab.id === props.selected}
          className={tab.id === props.selected ? 'tab tab-selected' : 'tab'}
          onClick={() => props.onSelect(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/** A time as the operator's locale shows it; a dash for none. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads data with `load` when the component mounts and whenever `reload` is called. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[] = []): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller lists the inputs of `load`
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error: describeError(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [generation, ...deps]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
