import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from './api.ts';
import { Notice } from './components.tsx';

/** One page of a list: its rows and the cursor of the next page (null on the last). */
export interface ListPage<T> {
  rows: T[];
  next: string | null;
}

/** A list read a page at a time: the rows so far and how to read more. */
export interface PagedList<T> {
  rows: T[];
  /** The next page's cursor; null once the last page is shown. */
  cursor: string | null;
  /** True once the first page arrived. */
  loaded: boolean;
  loading: boolean;
  error: string | undefined;
  loadMore: () => Promise<void>;
  /** Reads the first page again (after a change), dropping the pages read since. */
  reload: () => void;
}

/**
 * Reads the first page with `fetchPage()` when the component mounts and whenever `deps`
 * change or `reload` is called, and each next page with `fetchPage(cursor)`. An answer that
 * arrives after the list was reloaded is dropped.
 */
export function usePagedList<T>(
  fetchPage: (cursor?: string) => Promise<ListPage<T>>,
  deps: readonly unknown[],
): PagedList<T> {
  const [rows, setRows] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const [generation, setGeneration] = useState(0);
  const current = useRef(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller lists the inputs of `fetchPage`
  useEffect(() => {
    const run = ++current.current;
    setLoading(true);
    setError(undefined);
    fetchPage().then(
      (page) => {
        if (run !== current.current) return;
        setRows(page.rows);
        setCursor(page.next);
        setLoaded(true);
        setLoading(false);
      },
      (caught: unknown) => {
        if (run !== current.current) return;
        setRows([]);
        setCursor(null);
        setError(describeError(caught));
        setLoading(false);
      },
    );
  }, [generation, ...deps]);

  const loadMore = async () => {
    if (!cursor || loading) return;
    const run = current.current;
    setLoading(true);
    setError(undefined);
    try {
      const page = await fetchPage(cursor);
      if (run !== current.current) return;
      setRows((shown) => [...shown, ...page.rows]);
      setCursor(page.next);
    } catch (caught) {
      if (run === current.current) setError(describeError(caught));
    } finally {
      if (run === current.current) setLoading(false);
    }
  };
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { rows, cursor, loaded, loading, error, loadMore, reload };
}

/** Under a list: why the last read failed, and a button for the next page while there is one. */
export function LoadMore<T>(props: { list: PagedList<T>; label?: string }) {
  const { list } = props;
  return (
    <>
      {list.error ? <Notice kind="error">{list.error}</Notice> : null}
      {list.cursor ? (
        <button
          type="button"
          className="load-more"
          disabled={list.loading}
          onClick={() => void list.loadMore()}
        >
          {props.label ?? 'Load older'}
        </button>
      ) : null}
    </>
  );
}

/** A path with its query: the parameters that are set, in order. */
export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(name, value);
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
