import type {
  ChangesResponse,
  EntitiesResponse,
  EntityResponse,
  EpisodesResponse,
  EventsResponse,
  FactVersion,
  FactsResponse,
} from '@memotrace/contracts';
import { useMemo } from 'preact/hooks';
import { memoryPath } from './api';
import { type Cut, cutQuery, formatInstant, fromInputValue, toInputValue } from './cut';
import { CutControls } from './cut-controls';
import { Link, Loading, Section, consolePath, navigate, useApi } from './ui';

const DAY = 86_400_000;
/** A page of the memory page's listings: enough to read, little enough to answer and draw at once on a large memory. */
const ENTITY_PAGE = 25;
const EVENT_PAGE = 50;
const EPISODE_PAGE = 50;
const CHANGE_PAGE = 100;
/** The facts of one page of entities are read in one request: at most this many (the API's page). */
const FACTS_OF_PAGE = 1000;
/** The most ids `entities?ids=` takes at once (the API's MAX_LISTED_IDS). */
const IDS_PER_REQUEST = 100;

/** A fact's object: an entity (by name, linked to its neighbourhood) or a literal value. */
export function Dst({ fact, names, memoryId, cut }: { fact: FactVersion; names: Map<string, string>; memoryId: string; cut: Cut }) {
  if (typeof fact.dst !== 'string') return <span class="literal">{JSON.stringify(fact.dst.literal)}</span>;
  return <EntityLink memoryId={memoryId} entityId={fact.dst} names={names} cut={cut} />;
}

export function EntityLink({ memoryId, entityId, names, cut }: { memoryId: string; entityId: string; names: Map<string, string>; cut: Cut }) {
  const name = names.get(entityId);
  return (
    <Link href={consolePath(memoryId, `/entities/${encodeURIComponent(entityId)}${cutQuery(cut)}`)}>
      {name ?? entityId}
      {name !== undefined && name !== entityId ? <span class="id"> ({entityId})</span> : null}
    </Link>
  );
}

export function FactLink({ memoryId, factId, cut }: { memoryId: string; factId: string; cut: Cut }) {
  return (
    <Link class="id" href={consolePath(memoryId, `/facts/${encodeURIComponent(factId)}${cutQuery(cut)}`)}>
      {factId}
    </Link>
  );
}

export function interval(from: string, to: string | null): string {
  return `[${formatInstant(from)}, ${to === null ? '∞' : formatInstant(to)})`;
}

/** Entities as a map id -> name. */
export function entityNames(entities: readonly EntityResponse[]): Map<string, string> {
  return new Map(entities.map((e) => [e.entityId, e.name ?? e.entityId]));
}

/**
 * The entities `ids` name at the record time, read through `entities?ids=` (a request per hundred ids,
 * all at once). The ids a page names beyond its own listing: it shows them as ids until their names come.
 */
export function readEntities(
  get: <R>(path: string, request?: { query?: Record<string, string | number | readonly string[] | undefined> }) => Promise<R>,
  memoryId: string,
  recordedAt: string | undefined,
  ids: readonly string[],
): Promise<EntityResponse[]> {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_REQUEST) chunks.push(ids.slice(i, i + IDS_PER_REQUEST));
  return Promise.all(
    chunks.map((chunk) => get<EntitiesResponse>(memoryPath(memoryId, '/entities'), { query: { recordedAt, ids: chunk, limit: IDS_PER_REQUEST } })),
  ).then((pages) => pages.flatMap((p) => p.entities));
}

/** `names`, with the names of the other `ids` added once they are read (`reading` until then). */
function useNames(memoryId: string, cut: Cut, names: Map<string, string>, ids: readonly string[]): { names: Map<string, string>; reading: boolean } {
  const missing = [...new Set(ids)].filter((id) => !names.has(id)).sort();
  const state = useApi(
    async (get) => (missing.length === 0 ? [] : readEntities(get, memoryId, cut.recordedAt, missing)),
    [memoryId, cut.recordedAt, missing.join('\n')],
  );
  const reading = state.loading && missing.length > 0;
  if (state.data === undefined || state.data.length === 0) return { names, reading };
  // Answers name entities by their canonical ids at the cut, as the entities read answers them.
  return { names: new Map([...names, ...entityNames(state.data)]), reading };
}

const NO_NAMES = new Map<string, string>();

/** The entity ids a fact names (its subject and an entity object). */
function entityIdsOf(facts: readonly FactVersion[]): string[] {
  return facts.flatMap((f) => (typeof f.dst === 'string' ? [f.src, f.dst] : [f.src]));
}

/** A link to the next page of a listing, and back to its first, as real links carrying the cut. */
function Pager({ label, param, next, current, search }: { label: string; param: string; next: string | null; current?: string; search: string }) {
  if (next === null && current === undefined) return null;
  const to = (value: string | undefined) => {
    const params = new URLSearchParams(search);
    if (value === undefined) params.delete(param);
    else params.set(param, value);
    const text = params.toString().replaceAll('%3A', ':').replaceAll('%2A', '*');
    return location.pathname + (text === '' ? '' : `?${text}`);
  };
  return (
    <nav class="pager" aria-label={`Pages of ${label}`}>
      {current !== undefined ? <Link href={to(undefined)}>← first {label}</Link> : null}
      {next !== null ? <Link href={to(next)}>next {label} →</Link> : null}
    </nav>
  );
}

/** `/console/memories/{memoryId}`: the memory at the URL's cut, re-cut live by the time controls, each listing a page at a time. */
export function MemoryPage({ memoryId, search, cut }: { memoryId: string; search: string; cut: Cut }) {
  const params = new URLSearchParams(search);
  const at = (name: string) => params.get(name) ?? undefined;
  const [entitiesAfter, eventsAfter, episodesAfter] = [at('entitiesAfter'), at('eventsAfter'), at('episodesAfter')];
  const query = { validAt: cut.validAt, recordedAt: cut.recordedAt };
  // Every listing is read at once, each on its own; only an entity page's facts wait for the page.
  const entities = useApi(
    async (get) => {
      const page = await get<EntitiesResponse>(memoryPath(memoryId, '/entities'), { query: { ...query, limit: ENTITY_PAGE, after: entitiesAfter } });
      const src = page.entities.map((e) => e.entityId);
      const facts =
        src.length === 0 ? null : await get<FactsResponse>(memoryPath(memoryId, '/facts'), { query: { ...query, src, limit: FACTS_OF_PAGE } });
      return { page, facts };
    },
    [memoryId, cut.validAt, cut.recordedAt, entitiesAfter],
  );
  const events = useApi(
    (get) => get<EventsResponse>(memoryPath(memoryId, '/events'), { query: { ...query, limit: EVENT_PAGE, after: eventsAfter } }),
    [memoryId, cut.validAt, cut.recordedAt, eventsAfter],
  );
  const episodes = useApi(
    (get) => get<EpisodesResponse>(memoryPath(memoryId, '/episodes'), { query: { ...query, limit: EPISODE_PAGE, after: episodesAfter } }),
    [memoryId, cut.validAt, cut.recordedAt, episodesAfter],
  );
  const listed = entityNames(entities.data?.page.entities ?? []);
  const { names, reading } = useNames(memoryId, cut, listed, entityIdsOf(entities.data?.facts?.facts ?? []));
  const extra = { changesFrom: at('changesFrom'), changesTo: at('changesTo') };
  return (
    <>
      <h1>
        Memory <span class="id">{memoryId}</span>
      </h1>
      <nav class="subnav" aria-label="This memory">
        <Link href={consolePath(memoryId, `/search${cutQuery(cut)}`)}>Search at this cut</Link>
        <Link href={`/console/operations${cutQuery({ validAt: undefined, recordedAt: undefined }, { memory: memoryId })}`}>Operations</Link>
      </nav>
      <CutControls cut={cut} extra={extra} />
      <Section title="Entities and their facts" id="entities">
        <Loading state={entities}>
          {({ page, facts }) => {
            const bySrc = new Map<string, FactVersion[]>();
            for (const fact of facts?.facts ?? []) bySrc.set(fact.src, [...(bySrc.get(fact.src) ?? []), fact]);
            const paged = page.next !== null || entitiesAfter !== undefined;
            const counted = `${page.entities.length} entities${paged ? ' on this page' : ''}, with ${facts?.facts.length ?? 0} facts from them`;
            return (
              <>
                <p class="muted" data-testid="answered-cut">
                  Answered for valid time {formatInstant(page.cut.validAt)}, record time {formatInstant(page.cut.recordedAt)}: {counted}.
                </p>
                {page.entities.length === 0 ? <p>No entity was recorded by this record time.</p> : null}
                <ul class="entities" aria-busy={reading}>
                  {page.entities.map((entity) => (
                    <li key={entity.entityId} data-entity={entity.entityId}>
                      <EntityLink memoryId={memoryId} entityId={entity.entityId} names={names} cut={cut} />
                      {entity.types.length > 0 ? <span class="tag">{entity.types.join(', ')}</span> : null}
                      {(bySrc.get(entity.entityId) ?? []).length === 0 ? null : (
                        <ul class="facts">
                          {(bySrc.get(entity.entityId) ?? []).map((fact) => (
                            <li key={fact.factId} data-fact={fact.factId}>
                              <span class="rel">{fact.rel}</span> <Dst fact={fact} names={names} memoryId={memoryId} cut={cut} />{' '}
                              <span class="muted">valid {interval(fact.validFrom, fact.validTo)}</span>{' '}
                              <FactLink memoryId={memoryId} factId={fact.factId} cut={cut} />
                            </li>
                          ))}
                        </ul>
                      )}
                    </li>
                  ))}
                </ul>
                {facts?.next ? <p class="muted">Only the first {FACTS_OF_PAGE} facts of these entities are listed.</p> : null}
                <Pager label="entities" param="entitiesAfter" next={page.next} current={entitiesAfter} search={search} />
              </>
            );
          }}
        </Loading>
      </Section>
      <Section title="Events visible" id="events">
        <Loading state={events}>
          {(answer) => (
            <>
              {answer.events.length === 0 ? (
                <p>No event is visible at this cut.</p>
              ) : (
                <div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Event</th>
                        <th scope="col">Summary</th>
                        <th scope="col">Time span</th>
                        <th scope="col">Facts</th>
                      </tr>
                    </thead>
                    <tbody>
                      {answer.events.map((event) => (
                        <tr key={event.eventId} id={`event-${event.eventId}`}>
                          <th scope="row" class="id">
                            {event.eventId}
                          </th>
                          <td>{event.summary ?? <em>erased</em>}</td>
                          <td>{interval(event.timeSpan.from, event.timeSpan.to)}</td>
                          <td>
                            {event.includesFacts.map((factId) => (
                              <FactLink key={factId} memoryId={memoryId} factId={factId} cut={cut} />
                            ))}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              <Pager label="events" param="eventsAfter" next={answer.next} current={eventsAfter} search={search} />
            </>
          )}
        </Loading>
      </Section>
      <Section title="Episodes visible" id="episodes">
        <Loading state={episodes}>
          {(answer) => (
            <>
              {answer.episodes.length === 0 ? (
                <p>No episode is visible at this cut.</p>
              ) : (
                <div class="table-wrap">
                  <table>
                    <caption>Each episode lists only its events visible at this record time.</caption>
                    <thead>
                      <tr>
                        <th scope="col">Episode</th>
                        <th scope="col">Title</th>
                        <th scope="col">Window</th>
                        <th scope="col">Events</th>
                      </tr>
                    </thead>
                    <tbody>
                      {answer.episodes.map((episode) => (
                        <tr key={episode.episodeId} data-episode={episode.episodeId}>
                          <th scope="row" class="id">
                            {episode.episodeId}
                          </th>
                          <td>{episode.title}</td>
                          <td>{interval(episode.window.from, episode.window.to)}</td>
                          <td class="id">{episode.events.join(', ')}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              <Pager label="episodes" param="episodesAfter" next={answer.next} current={episodesAfter} search={search} />
            </>
          )}
        </Loading>
      </Section>
      <Changes memoryId={memoryId} cut={cut} names={names} from={extra.changesFrom} to={extra.changesTo} />
    </>
  );
}

/** What changed in record time between two instants (default: the week before the cut's record time), a page of instants at a time. */
function Changes({ memoryId, cut, names, from, to }: { memoryId: string; cut: Cut; names: Map<string, string>; from?: string; to?: string }) {
  // "Now" is taken once per cut: a clock read at each render would ask again at each render.
  const now = useMemo(() => new Date().toISOString(), [cut.recordedAt, to]);
  const end = to ?? cut.recordedAt ?? now;
  const start = from ?? new Date(Date.parse(end) - 7 * DAY).toISOString();
  const state = useApi(
    (get) => get<ChangesResponse>(memoryPath(memoryId, '/changes'), { query: { from: start, to: end, limit: CHANGE_PAGE } }),
    [memoryId, start, end],
  );
  // Its own names: they do not wait for the entity page's, nor are they read again when those come.
  const read = useNames(memoryId, cut, NO_NAMES, entityIdsOf((state.data?.changes ?? []).map((c) => c.version)));
  const named = read.names.size === 0 ? names : new Map([...names, ...read.names]);
  const set = (changes: { changesFrom?: string; changesTo?: string }) =>
    navigate(location.pathname + cutQuery(cut, { changesFrom: from, changesTo: to, ...changes }), true);
  const onInput = (name: 'changesFrom' | 'changesTo', value: string) => {
    const iso = fromInputValue(value);
    if (iso !== undefined) set({ [name]: iso });
  };
  return (
    <Section title="Changes between two record times" id="changes">
      <div class="cut-row">
        <label>
          From (UTC)
          <input
            type="datetime-local"
            step={1}
            name="changesFrom"
            value={toInputValue(start)}
            onInput={(e) => onInput('changesFrom', e.currentTarget.value)}
          />
        </label>
        <label>
          To (UTC)
          <input
            type="datetime-local"
            step={1}
            name="changesTo"
            value={toInputValue(end)}
            onInput={(e) => onInput('changesTo', e.currentTarget.value)}
          />
        </label>
      </div>
      <Loading state={state}>
        {({ changes, to: answered, next }) => (
          <>
            {changes.length === 0 ? (
              <p>
                Nothing changed in [{formatInstant(start)}, {formatInstant(answered)}).
              </p>
            ) : (
              <div class="table-wrap">
                <table aria-busy={read.reading}>
                  <caption>
                    {changes.length} changes in [{formatInstant(start)}, {formatInstant(answered)})
                    {next !== null ? `; more until ${formatInstant(end)}` : ''}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Recorded</th>
                      <th scope="col">Change</th>
                      <th scope="col">Fact</th>
                      <th scope="col">Statement</th>
                      <th scope="col">Valid</th>
                    </tr>
                  </thead>
                  <tbody>
                    {changes.map((c, i) => (
                      <tr key={i}>
                        <td>{formatInstant(c.at)}</td>
                        <td>
                          <span class={`badge ${c.change}`}>{c.change}</span>
                        </td>
                        <td>
                          <FactLink memoryId={memoryId} factId={c.version.factId} cut={cut} />
                        </td>
                        <td>
                          {named.get(c.version.src) ?? c.version.src} <span class="rel">{c.version.rel}</span>{' '}
                          <Dst fact={c.version} names={named} memoryId={memoryId} cut={cut} />
                        </td>
                        <td>{interval(c.version.validFrom, c.version.validTo)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {next !== null ? (
              <nav class="pager" aria-label="Pages of changes">
                <Link href={location.pathname + cutQuery(cut, { changesFrom: next, changesTo: end })}>
                  next changes, from {formatInstant(next)} →
                </Link>
              </nav>
            ) : null}
          </>
        )}
      </Loading>
    </Section>
  );
}
