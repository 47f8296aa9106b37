import type { MentionView, SearchItem, SearchResponse } from '@memotrace/contracts';
import { useState } from 'preact/hooks';
import { memoryPath } from './api';
import { type Cut, cutQuery, formatInstant } from './cut';
import { CutControls } from './cut-controls';
import { BackToMemory, Link, Loading, Section, consolePath, navigate, useApi } from './ui';

/** Where an item (or an item's evidence) is shown in the console: one click from the result. */
export function itemHref(memoryId: string, kind: SearchItem['kind'], id: string, cut: Cut): string {
  const q = cutQuery(cut);
  switch (kind) {
    case 'fact':
      return consolePath(memoryId, `/facts/${encodeURIComponent(id)}${q}`);
    case 'mention':
      return consolePath(memoryId, `/mentions/${encodeURIComponent(id)}${q}`);
    case 'event':
      // No page of their own: the memory's events, and its episodes, at this cut.
      return consolePath(memoryId, `${q}#events`);
    case 'episode':
      return consolePath(memoryId, `${q}#episodes`);
    default:
      // Topics (SPEC 5.4), and any kind a newer service returns: the memory's topics at this cut.
      return consolePath(memoryId, `/topics${q}`);
  }
}

/** `/console/memories/{memoryId}/search?q=&k=&tokenBudget=&cold=1&validAt=&recordedAt=`: search at a cut; `cold=1` searches cold items too. */
export function SearchPage({ memoryId, search, cut }: { memoryId: string; search: string; cut: Cut }) {
  const params = new URLSearchParams(search);
  const q = params.get('q') ?? '';
  const k = params.get('k') ?? '10';
  const tokenBudget = params.get('tokenBudget') ?? '';
  const cold = params.get('cold') === '1';
  const [draft, setDraft] = useState({ q, k, tokenBudget, cold });
  const state = useApi(
    async (get) =>
      q.trim() === ''
        ? undefined
        : get<SearchResponse>(memoryPath(memoryId, '/search'), {
            body: {
              query: q,
              k: Number(k),
              ...(tokenBudget === '' ? {} : { tokenBudget: Number(tokenBudget) }),
              ...(cold ? { tiers: ['hot', 'cold'] } : {}),
              ...(cut.validAt === undefined ? {} : { validAt: cut.validAt }),
              ...(cut.recordedAt === undefined ? {} : { recordedAt: cut.recordedAt }),
            },
          }),
    [memoryId, q, k, tokenBudget, cold, cut.validAt, cut.recordedAt],
  );
  const coldParam = (on: boolean) => (on ? '1' : undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    navigate(location.pathname + cutQuery(cut, { q: draft.q, k: draft.k, tokenBudget: draft.tokenBudget, cold: coldParam(draft.cold) }));
  };
  return (
    <>
      <h1>
        Search <span class="id">{memoryId}</span>
      </h1>
      <BackToMemory memoryId={memoryId} cut={cut} />
      <form class="search" onSubmit={submit} role="search">
        <label class="grow">
          Query
          <input type="search" name="q" required value={draft.q} onInput={(e) => setDraft({ ...draft, q: e.currentTarget.value })} />
        </label>
        <label>
          Items per kind (k)
          <input type="number" name="k" min={0} max={1000} value={draft.k} onInput={(e) => setDraft({ ...draft, k: e.currentTarget.value })} />
        </label>
        <label>
          Token budget
          <input
            type="number"
            name="tokenBudget"
            min={0}
            placeholder="none"
            value={draft.tokenBudget}
            onInput={(e) => setDraft({ ...draft, tokenBudget: e.currentTarget.value })}
          />
        </label>
        <label class="check">
          <input type="checkbox" name="cold" checked={draft.cold} onChange={(e) => setDraft({ ...draft, cold: e.currentTarget.checked })} />
          include cold items
        </label>
        <button type="submit">Search</button>
      </form>
      <CutControls cut={cut} extra={{ q, k, tokenBudget, cold: coldParam(cold) }} />
      <Loading state={state}>
        {(answer) =>
          answer === undefined ? (
            <p class="muted">
              Type a query: search cuts at the record time (default now), over every valid time unless one is set, among hot items unless cold ones
              are included.
            </p>
          ) : (
            <Section title="Ranked items" id="results">
              <p data-testid="search-summary">
                {answer.items.length} items, <strong>{answer.tokens} tokens</strong> packed,{' '}
                {`cut valid ${formatInstant(answer.cut.validAt)}, recorded ${formatInstant(answer.cut.recordedAt)}`}
                {answer.unembedded ? `; ${answer.unembedded} items not embedded yet (ranked by BM25 alone)` : ''}.
              </p>
              <ol class="results">
                {answer.items.map((item) => (
                  <li key={`${item.kind}:${item.id}`} data-item={`${item.kind}:${item.id}`}>
                    <div class="result-head">
                      <span class={`badge ${item.kind}`}>{item.kind}</span>
                      {item.tier === undefined ? null : <span class={`badge tier ${item.tier}`}>{item.tier}</span>}{' '}
                      <Link href={itemHref(memoryId, item.kind, item.id, cut)} class="id">
                        {item.id}
                      </Link>
                      <span class="muted">
                        {' '}
                        score {item.score.toFixed(3)},{' '}
                        <span class="salience" data-salience={item.salience} title="How much the item matters to the memory now, from 0 to 1">
                          salience {item.salience.toFixed(2)}
                        </span>
                        , {item.tokens} tokens
                        {item.validFrom ? `, valid ${formatInstant(item.validFrom)} – ${formatInstant(item.validTo)}` : ''}
                        {item.occurredAt ? `, said ${formatInstant(item.occurredAt)}` : ''}
                      </span>
                    </div>
                    <p class="result-text">{item.text}</p>
                    {item.evidence.length > 0 ? (
                      <p class="evidence">
                        Evidence:{' '}
                        {item.evidence.map((e) => (
                          <Link key={`${e.kind}:${e.id}`} href={itemHref(memoryId, e.kind, e.id, cut)} class="id">
                            {e.kind} {e.id}
                          </Link>
                        ))}
                      </p>
                    ) : null}
                  </li>
                ))}
              </ol>
            </Section>
          )
        }
      </Loading>
    </>
  );
}

/** `/console/memories/{memoryId}/mentions/{mentionId}`: one recorded turn, the evidence a fact points at. */
export function MentionPage({ memoryId, mentionId, cut }: { memoryId: string; mentionId: string; cut: Cut }) {
  const state = useApi(
    (get) => get<MentionView>(memoryPath(memoryId, `/mentions/${encodeURIComponent(mentionId)}`), { query: { recordedAt: cut.recordedAt } }),
    [memoryId, mentionId, cut.recordedAt],
  );
  return (
    <>
      <h1>
        Mention <span class="id">{mentionId}</span>
      </h1>
      <BackToMemory memoryId={memoryId} cut={cut} />
      <Loading state={state}>
        {(m) => (
          <dl class="facts-list">
            <dt>Document</dt>
            <dd class="id">{m.docId}</dd>
            <dt>Speaker</dt>
            <dd>{m.speaker ?? '—'}</dd>
            <dt>Said</dt>
            <dd>{formatInstant(m.occurredAt)}</dd>
            <dt>Recorded</dt>
            <dd>{formatInstant(m.recordedFrom)}</dd>
            <dt>Text</dt>
            <dd>
              <blockquote>{m.text ?? <em>erased</em>}</blockquote>
            </dd>
          </dl>
        )}
      </Loading>
    </>
  );
}
