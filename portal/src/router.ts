// A tiny History-API router: the path picks the view, the query string is the view's state (so a data-log
// URL can be shared). api/portal-static.ts answers every page path with index.html.
import { useEffect, useState } from 'preact/hooks';

export interface Location { path: string; query: URLSearchParams }

const listeners = new Set<() => void>();
const current = (): Location => ({ path: window.location.pathname, query: new URLSearchParams(window.location.search) });

export function navigate(to: string, { replace = false } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  window.history[replace ? 'replaceState' : 'pushState'](null, '', to);
  for (const l of listeners) l();
}

window.addEventListener('popstate', () => { for (const l of listeners) l(); });

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const l = () => setLoc(current());
    listeners.add(l);
    return () => { listeners.delete(l); };
  }, []);
  return loc;
}

/** `path` plus the non-empty entries of `query`. */
export function href(path: string, query: Record<string, string | number | null | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `${path}?${s}` : path;
}

/** A click handler for <a href> that stays in the app (new tab / modified clicks go to the browser). */
export function followLink(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.currentTarget as HTMLAnchorElement);
  if (a.origin !== window.location.origin) return;
  e.preventDefault();
  navigate(a.pathname + a.search);
}
