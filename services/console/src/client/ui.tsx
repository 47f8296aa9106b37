import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { ApiError, type Request, callApi } from './api';
import { type Cut, cutQuery } from './cut';

/** The pasted API key: in this tab's session storage only (gone when the tab closes), never in a URL or a cookie. */
const KEY_ITEM = 'memotrace.apiKey';
const keyListeners = new Set<() => void>();

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_ITEM);
  } catch {
    return null;
  }
}

export function storeKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  else sessionStorage.removeItem(KEY_ITEM);
  for (const listener of keyListeners) listener();
}

export function useKey(): string | null {
  const [key, setKey] = useState(storedKey());
  useEffect(() => {
    const listener = () => setKey(storedKey());
    keyListeners.add(listener);
    return () => void keyListeners.delete(listener);
  }, []);
  return key;
}

// ------------------------------------------------------------------ routing

const NAVIGATED = 'memotrace:navigated';

/** Client-side navigation: a new history entry (`replace`: the same one, for a re-cut while typing). */
export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAVIGATED));
  if (!replace) window.scrollTo(0, 0);
}

export function useLocation(): { path: string; search: string } {
  const read = () => ({ path: location.pathname.replace(/\/+$/, '') || '/', search: location.search });
  const [where, setWhere] = useState(read());
  useEffect(() => {
    const update = () => setWhere(read());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return where;
}

/** A real link (open in a new tab, copy the address) that navigates in place on a plain click. */
export function Link(props: JSX.HTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return <a {...props} onClick={onClick} />;
}

// ------------------------------------------------------------------ data

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

/**
 * Reads through the API whenever `deps` (or the key) change; an answer to an older request that
 * arrives late is dropped, so a live re-cut never shows a cut it has left.
 */
export function useApi<T>(load: (get: <R>(path: string, request?: Request) => Promise<R>) => Promise<T>, deps: unknown[]): Loaded<T> {
  const key = useKey();
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  // Asked as soon as the page is drawn in the DOM, not after the browser's next frame (when a plain
  // effect runs): the request is what the page waits for.
  useLayoutEffect(() => {
    let current = true;
    // An error belongs to the request that met it: a new request (a new key, a re-cut) clears it, so
    // the page never shows an old refusal beside a request still under way.
    setState((s) => ({ data: s.data, loading: true }));
    load((path, request) => callApi(path, key, request)).then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) =>
        current && setState({ error: error instanceof ApiError ? error : new ApiError(0, 'CLIENT', String(error)), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [key, round, ...deps]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export function ErrorBox({ error }: { error: ApiError | undefined }) {
  if (error === undefined) return null;
  return (
    <div class="error" role="alert">
      <strong>{error.status === 401 ? 'API key refused' : error.status === 0 ? 'No answer' : `Error ${error.status}`}</strong>
      <p>{error.message}</p>
    </div>
  );
}

/** Error, then loading, then the content: the last answer stays on screen (dimmed) while the next one loads. */
export function Loading<T>({ state, children }: { state: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (state.error) return <ErrorBox error={state.error} />;
  if (state.data === undefined)
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  return (
    <div class={state.loading ? 'stale' : undefined} aria-busy={state.loading}>
      {children(state.data)}
    </div>
  );
}

/** A table of rows under named columns (`class: 'num'` right-aligns one), scrolling sideways on a narrow screen. */
export function Table({
  columns,
  caption,
  children,
  ...attributes
}: {
  columns: readonly (string | { name: string; class: string })[];
  caption?: ComponentChildren;
  children: ComponentChildren;
} & Omit<JSX.HTMLAttributes<HTMLTableElement>, 'caption'>) {
  return (
    <div class="table-wrap">
      <table {...attributes}>
        {caption === undefined ? null : <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.name} scope="col" class={column.class}>
                  {column.name}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function Section({ title, id, children }: { title: string; id?: string; children: ComponentChildren }) {
  const heading = id ? `${id}-heading` : undefined;
  return (
    <section id={id} aria-labelledby={heading}>
      <h2 id={heading}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * A fact version's tier (SPEC 5.4) where it is news: a cold version gets a small badge, a hot one (the rule)
 * nothing. Every other field of a cold version reads as a hot one's.
 */
export function TierBadge({ tier }: { tier: 'hot' | 'cold' | undefined }) {
  if (tier !== 'cold') return null;
  return (
    <span class="badge tier cold" title="Cooled: search leaves it out unless asked for cold items; it answers as a hot one otherwise">
      cold
    </span>
  );
}

/** `1 fact`, `2 facts`. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function consolePath(memoryId: string, rest = ''): string {
  return `/console/memories/${encodeURIComponent(memoryId)}${rest}`;
}

/** The way back from a page about one item to its memory, at the same cut. */
export function BackToMemory({ memoryId, cut, label = 'This memory' }: { memoryId: string; cut: Cut; label?: string }) {
  return (
    <nav class="subnav" aria-label={label}>
      <Link href={consolePath(memoryId, cutQuery(cut))}>
        ← memory <span class="id">{memoryId}</span> at this cut
      </Link>
    </nav>
  );
}
