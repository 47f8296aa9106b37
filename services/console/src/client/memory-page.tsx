import type {
  ChangesResponse,
  EntitiesResponse,
  EntityResponse,
  EpisodeView,
  EpisodesResponse,
  EventView,
  EventsResponse,
  FactVersion,
  FactsResponse,
} from '@memotrace/contracts';
import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { memoryPath } from './api';
import { type Cut, cutQuery, formatInstant, fromInputValue, toInputValue } from './cut';
import { CutControls } from './cut-controls';
import { Link, Loading, Section, Table, TierBadge, consolePath, count, navigate, useApi } from './ui';

const DAY = 86_400_000;
/** A page of the memory page's listings: enough to read, little enough to answer and draw at once on a large memory. */
const ENTITY_PAGE = 25;
const LISTING_PAGE = 50;
const CHANGE_PAGE = 100;
/** An entity's facts drawn before the reader asks for the rest. */
const FACTS_SHOWN = 5;
/** How many facts `entities?include=facts` holds at most (the API's ENTITY_PAGE_FACTS; a type import keeps zod out of the bundle). */
const ENTITY_PAGE_FACTS = 1000;

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

/** A link to the next page of a listing, and back to its first, as real links carrying the cut. */
export function Pager({
  label,
  param,
  next,
  current,
  search,
}: {
  label: string;
  param: string;
  next: string | null;
  current?: string;
  search: string;
}) {
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

/** What a section of the memory page reads: the page's memory, cut and address (its page cursors). */
interface Listing {
  memoryId: string;
  cut: Cut;
  search: string;
}

const after = (search: string, kind: string) => new URLSearchParams(search).get(`${kind}After`) ?? undefined;

/**
 * A section listing a page of `kind` as a table, with the link to its next page (`{kind}After`). Each
 * section reads and draws on its own: an answer redraws its section, not the page.
 */
function PagedTable<A extends { next: string | null }, T>(
  props: Listing & {
    title: string;
    kind: 'events' | 'episodes';
    items: (answer: A) => readonly T[];
    columns: string[];
    caption?: string;
    children: (item: T) => ComponentChildren;
  },
) {
  const { memoryId, cut, search, kind } = props;
  const current = after(search, kind);
  const state = useApi(
    (get) =>
      get<A>(memoryPath(memoryId, `/${kind}`), { query: { validAt: cut.validAt, recordedAt: cut.recordedAt, limit: LISTING_PAGE, after: current } }),
    [memoryId, cut.validAt, cut.recordedAt, current],
  );
  return (
    <Section title={props.title} id={kind}>
      <Loading state={state}>
        {(answer) => (
          <>
            {props.items(answer).length === 0 ? (
              <p>No {kind.replace(/s$/, '')} is visible at this cut.</p>
            ) : (
              <Table columns={props.columns} caption={props.caption}>
                {props.items(answer).map(props.children)}
              </Table>
            )}
            <Pager label={kind} param={`${kind}After`} next={answer.next} current={current} search={search} />
          </>
        )}
      </Loading>
    </Section>
  );
}

/** Facts of one subject, each with its object, valid time and a link to its diagram. */
function FactList({ facts, names, memoryId, cut }: { facts: readonly FactVersion[]; names: Map<string, string>; memoryId: string; cut: Cut }) {
  return (
    <ul class="facts">
      {facts.map((fact) => (
        <li key={fact.factId} data-fact={fact.factId}>
          <span class="rel">{fact.rel}</span> <Dst fact={fact} names={names} memoryId={memoryId} cut={cut} />{' '}
          <span class="muted">valid {interval(fact.validFrom, fact.validTo)}</span> <FactLink memoryId={memoryId} factId={fact.factId} cut={cut} />
          <TierBadge tier={fact.tier} />
        </li>
      ))}
    </ul>
  );
}

/** All of an entity's facts at the cut, with the entities they name: read when the reader asks for them. */
function AllFacts({ entityId, names, memoryId, cut }: { entityId: string; names: Map<string, string>; memoryId: string; cut: Cut }) {
  const state = useApi(
    async (get) => {
      const query = { validAt: cut.validAt, recordedAt: cut.recordedAt, src: entityId, limit: ENTITY_PAGE_FACTS, include: 'entities' };
      const answer = await get<FactsResponse>(memoryPath(memoryId, '/facts'), { query });
      return { facts: answer.facts, names: new Map([...names, ...entityNames(answer.entities ?? [])]) };
    },
    [memoryId, entityId, cut.validAt, cut.recordedAt],
  );
  return <Loading state={state}>{(all) => <FactList facts={all.facts} names={all.names} memoryId={memoryId} cut={cut} />}</Loading>;
}

/**
 * An entity's facts at the cut: the first few, and the rest on request. A page of entities can hold a thousand
 * facts; read and drawn at once they are a wall to read and most of the page's time.
 */
function EntityFacts({
  entityId,
  first,
  total,
  names,
  memoryId,
  cut,
}: {
  entityId: string;
  first: readonly FactVersion[];
  /** How many facts the entity has at the cut; undefined when the page's read was cut short before counting them all. */
  total: number | undefined;
  names: Map<string, string>;
  memoryId: string;
  cut: Cut;
}) {
  const [all, setAll] = useState(false);
  if (total === 0) return null;
  const more = total === undefined || total > first.length;
  return (
    <>
      {all && more ? (
        <AllFacts entityId={entityId} names={names} memoryId={memoryId} cut={cut} />
      ) : (
        <FactList facts={first} names={names} memoryId={memoryId} cut={cut} />
      )}
      {more ? (
        <button type="button" class="more" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? `Show the first ${FACTS_SHOWN} facts` : `Show all ${total === undefined ? '' : `${total} `}facts`}
        </button>
      ) : null}
    </>
  );
}

/** A page of the entities at the cut, each with its facts, and the names those facts need: one request. */
function Entities({ memoryId, cut, search }: Listing) {
  const current = after(search, 'entities');
  const state = useApi(
    async (get) => {
      const query = {
        validAt: cut.validAt,
        recordedAt: cut.recordedAt,
        limit: ENTITY_PAGE,
        after: current,
        include: 'facts',
        factsPerEntity: FACTS_SHOWN,
      };
      const page = await get<EntitiesResponse>(memoryPath(memoryId, '/entities'), { query });
      return { page, facts: page.facts, names: entityNames([...page.entities, ...(page.facts?.entities ?? [])]) };
    },
    [memoryId, cut.validAt, cut.recordedAt, current],
  );
  return (
    <Section title="Entities and their facts" id="entities">
      <Loading state={state}>
        {({ page, facts, names }) => {
          const bySrc = new Map<string, FactVersion[]>();
          for (const fact of facts?.facts ?? []) bySrc.set(fact.src, [...(bySrc.get(fact.src) ?? []), fact]);
          const paged = page.next !== null || current !== undefined;
          const listed = `${count(page.entities.length, 'entity', 'entities')}${paged ? ' on this page' : ''}`;
          const counts = facts?.counts ?? {};
          const read = Object.values(counts).reduce((sum, n) => sum + n, 0);
          const counted = `${listed}, with ${count(read, 'fact')} from them`;
          return (
            <>
              <p class="muted" data-testid="answered-cut">
                Answered for valid time {formatInstant(page.cut.validAt)}, record time {formatInstant(page.cut.recordedAt)}: {counted}.
              </p>
              {page.entities.length === 0 ? <p>No entity was recorded by this record time.</p> : null}
              <ul class="entities">
                {page.entities.map((entity) => (
                  <li key={entity.entityId} data-entity={entity.entityId}>
                    <EntityLink memoryId={memoryId} entityId={entity.entityId} names={names} cut={cut} />
                    {entity.types.length > 0 ? <span class="tag">{entity.types.join(', ')}</span> : null}
                    <EntityFacts
                      entityId={entity.entityId}
                      first={bySrc.get(entity.entityId) ?? []}
                      total={facts?.next ? undefined : counts[entity.entityId]}
                      names={names}
                      memoryId={memoryId}
                      cut={cut}
                    />
                  </li>
                ))}
              </ul>
              {facts?.next ? <p class="muted">Only the first {ENTITY_PAGE_FACTS.toLocaleString('en')} facts of these entities are listed.</p> : null}
              <Pager label="entities" param="entitiesAfter" next={page.next} current={current} search={search} />
            </>
          );
        }}
      </Loading>
    </Section>
  );
}

/** `/console/memories/{memoryId}`: the memory at the URL's cut, re-cut live by the time controls; each section reads on its own, a page at a time. */
export function MemoryPage({ memoryId, search, cut }: { memoryId: string; search: string; cut: Cut }) {
  const params = new URLSearchParams(search);
  const extra = { changesFrom: params.get('changesFrom') ?? undefined, changesTo: params.get('changesTo') ?? undefined };
  const listing = { memoryId, cut, search };
  return (
    <>
      <h1>
        Memory <span class="id">{memoryId}</span>
      </h1>
      <nav class="subnav" aria-label="This memory">
        <Link href={consolePath(memoryId, `/search${cutQuery(cut)}`)}>Search at this cut</Link>
        <Link href={consolePath(memoryId, `/check${cutQuery(cut)}`)}>Check a text at this cut</Link>
        <Link href={consolePath(memoryId, `/topics${cutQuery(cut)}`)}>Topics at this cut</Link>
        <Link href={`/console/operations${cutQuery({ validAt: undefined, recordedAt: undefined }, { memory: memoryId })}`}>Operations</Link>
      </nav>
      <CutControls cut={cut} extra={extra} />
      <Entities {...listing} />
      <PagedTable<EventsResponse, EventView>
        {...listing}
        title="Events visible"
        kind="events"
        items={(answer) => answer.events}
        columns={['Event', 'Summary', 'Time span', 'Facts']}
      >
        {(event) => (
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
        )}
      </PagedTable>
      <PagedTable<EpisodesResponse, EpisodeView>
        {...listing}
        title="Episodes visible"
        kind="episodes"
        items={(answer) => answer.episodes}
        columns={['Episode', 'Title', 'Window', 'Events']}
        caption="Each episode lists only its events visible at this record time."
      >
        {(episode) => (
          <tr key={episode.episodeId} data-episode={episode.episodeId}>
            <th scope="row" class="id">
              {episode.episodeId}
            </th>
            <td>{episode.title}</td>
            <td>{interval(episode.window.from, episode.window.to)}</td>
            <td class="id">{episode.events.join(', ')}</td>
          </tr>
        )}
      </PagedTable>
      <Changes memoryId={memoryId} cut={cut} from={extra.changesFrom} to={extra.changesTo} />
    </>
  );
}

/** What changed in record time between two instants (default: the week before the cut's record time), a page of instants at a time. */
function Changes({ memoryId, cut, from, to }: { memoryId: string; cut: Cut; from?: string; to?: string }) {
  // "Now" is taken once per cut: a clock read at each render would ask again at each render.
  const now = useMemo(() => new Date().toISOString(), [cut.recordedAt, to]);
  const end = to ?? cut.recordedAt ?? now;
  const start = from ?? new Date(Date.parse(end) - 7 * DAY).toISOString();
  // The changes come with the entities they name (as at the window's end): the table is drawn once, with its names.
  const state = useApi(
    async (get) => {
      const answer = await get<ChangesResponse>(memoryPath(memoryId, '/changes'), {
        query: { from: start, to: end, limit: CHANGE_PAGE, include: 'entities' },
      });
      return { ...answer, names: entityNames(answer.entities ?? []) };
    },
    [memoryId, start, end],
  );
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
        {({ changes, to: answered, next, names }) => (
          <>
            {changes.length === 0 ? (
              <p>
                Nothing changed in [{formatInstant(start)}, {formatInstant(answered)}).
              </p>
            ) : (
              <Table
                columns={['Recorded', 'Change', 'Fact', 'Statement', 'Valid']}
                caption={
                  <>
                    {count(changes.length, 'change')} in [{formatInstant(start)}, {formatInstant(answered)})
                    {next !== null ? `; more until ${formatInstant(end)}` : ''}
                  </>
                }
              >
                {changes.map((c, i) => (
                  <tr key={i}>
                    <td>{formatInstant(c.at)}</td>
                    <td>
                      <span class={`badge ${c.change}`}>{c.change}</span>
                    </td>
                    <td>
                      <FactLink memoryId={memoryId} factId={c.version.factId} cut={cut} />
                      <TierBadge tier={c.version.tier} />
                    </td>
                    <td>
                      {names.get(c.version.src) ?? c.version.src} <span class="rel">{c.version.rel}</span>{' '}
                      <Dst fact={c.version} names={names} memoryId={memoryId} cut={cut} />
                    </td>
                    <td>{interval(c.version.validFrom, c.version.validTo)}</td>
                  </tr>
                ))}
              </Table>
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
