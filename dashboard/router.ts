import { useEffect, useState } from 'react';

/** The dashboard's pages live under this path; the api answers every page path with the app. */
export const BASE_PATH = '/operator';

const listeners = new Set<() => void>();

/** Goes to a dashboard path (`/voices/ID`), adding a history entry. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE_PATH}${path}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

/** The dashboard path of the address bar, without `/operator` and trailing slashes. */
function currentPath(): string {
  const path = window.location.pathname.slice(BASE_PATH.length).replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

/** The current dashboard path, kept current on navigation. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** A link inside the dashboard: a real `<a href>` that navigates without a reload. */
export function linkProps(path: string): {
  href: string;
  onClick: (event: { preventDefault(): void; metaKey: boolean; ctrlKey: boolean }) => void;
} {
  return {
    href: `${BASE_PATH}${path}`,
    onClick: (event) => {
      if (event.metaKey || event.ctrlKey) return;
      event.preventDefault();
      navigate(path);
    },
  };
}
