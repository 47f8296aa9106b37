import './style.css';
import type { AccessResponse } from '@memotrace/contracts';
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { cutFromSearch } from './cut';
import { EntityPage } from './entity-page';
import { FactPage } from './fact-page';
import { MemoriesPage } from './memories-page';
import { MemoryPage } from './memory-page';
import { OperationsPage } from './operations-page';
import { CheckPage } from './check-page';
import { TopicsPage } from './topics-page';
import { MentionPage, SearchPage } from './search-page';
import { Link, storeKey, useApi, useKey, useLocation } from './ui';

/** The key form: the key goes to this tab's session storage, and from there into each API call's header only. */
function KeyBar() {
  const key = useKey();
  const access = useApi((get) => get<AccessResponse>('/v1/access'), []);
  const [draft, setDraft] = useState('');
  return (
    <form
      class="key"
      onSubmit={(e) => {
        e.preventDefault();
        storeKey(draft.trim() || null);
        setDraft('');
      }}
    >
      <label>
        API key
        <input
          type="password"
          name="apiKey"
          autoComplete="off"
          spellcheck={false}
          placeholder={key ? 'a key is set for this tab' : 'paste a key (none needed without access control)'}
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Use key</button>
      {key ? (
        <button type="button" onClick={() => storeKey(null)}>
          Forget key
        </button>
      ) : null}
      <span class="muted" role="status" data-testid="key-status">
        {key ? `key …${key.slice(-4)} in this tab only` : 'no key'}
        {access.data ? `: ${accessText(access.data)}` : access.error?.status === 401 ? ': refused' : ''}
      </span>
    </form>
  );
}

/** What the key may do, in words: "console-reader, read access to acme-story". */
function accessText(a: AccessResponse): string {
  if (!a.accessControl) return 'no access control here, everything is allowed';
  const memories = a.memories.includes('*') ? 'every memory' : a.memories.join(', ');
  return `${a.keyId}, ${a.access} access to ${memories}`;
}

function decode(part: string | undefined): string {
  try {
    return decodeURIComponent(part ?? '');
  } catch {
    return part ?? '';
  }
}

function Page({ path, search }: { path: string; search: string }) {
  const cut = cutFromSearch(search);
  const parts = path.split('/').slice(1); // ['console', 'memories', id, ...]
  if (parts[0] !== 'console') return <NotFound path={path} />;
  if (parts.length === 1) return <MemoriesPage />;
  if (parts[1] === 'operations' && parts.length === 2) return <OperationsPage />;
  if (parts[1] !== 'memories' || parts[2] === undefined) return <NotFound path={path} />;
  const memoryId = decode(parts[2]);
  const [section, id] = [parts[3], decode(parts[4])];
  if (section === undefined) return <MemoryPage key={memoryId} memoryId={memoryId} search={search} cut={cut} />;
  if (section === 'search' && parts.length === 4) return <SearchPage memoryId={memoryId} search={search} cut={cut} />;
  if (section === 'check' && parts.length === 4) return <CheckPage memoryId={memoryId} search={search} cut={cut} />;
  if (section === 'topics' && parts.length === 4) return <TopicsPage memoryId={memoryId} search={search} cut={cut} />;
  if (parts.length !== 5) return <NotFound path={path} />;
  if (section === 'facts') return <FactPage memoryId={memoryId} factId={id} cut={cut} />;
  if (section === 'entities') return <EntityPage memoryId={memoryId} entityId={id} cut={cut} />;
  if (section === 'mentions') return <MentionPage memoryId={memoryId} mentionId={id} cut={cut} />;
  return <NotFound path={path} />;
}

function NotFound({ path }: { path: string }) {
  return (
    <>
      <h1>Not found</h1>
      <p>
        The console has no page at <code>{path}</code>. <Link href="/console">See the memories</Link>.
      </p>
    </>
  );
}

function App() {
  const { path, search } = useLocation();
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <nav aria-label="Console">
          <Link href="/console" class="brand">
            MemoTrace
          </Link>
          <Link href="/console">Memories</Link>
          <Link href="/console/operations">Operations</Link>
          <a href="/docs">API reference</a>
        </nav>
        <KeyBar />
      </header>
      <main id="main" tabIndex={-1}>
        <Page path={path} search={search} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
