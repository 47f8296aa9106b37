import type { ChangesResponse, EntitiesResponse, EntityResponse, EventsResponse, FactVersion, FactsResponse } from '@memotrace/contracts';
import { memoryPath } from './api';
import { type Cut, cutQuery, formatInstant, fromInputValue, toInputValue } from './cut';
import { CutControls } from './cut-controls';
import { Link, Loading, Section, consolePath, navigate, useApi } from './ui';

const DAY = 86_400_000;

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

/** The entities of the cut (one page of up to 1000, by entityId) as a map id -> name. */
export function entityNames(entities: readonly EntityResponse[]): Map<string, string> {
  return new Map(entities.map((e) => [e.entityId, e.name ?? e.entityId]));
}

/** `/console/memories/{memoryId}`: the memory at the URL's cut, re-cut live by the time controls. */
export function MemoryPage({ memoryId, search, cut }: { memoryId: string; search: string; cut: Cut }) {
  const params = new URLSearchParams(search);
  const changesFrom = params.get('changesFrom') ?? undefined;
  const changesTo = params.get('changesTo') ?? undefined;
  const query = { validAt: cut.validAt, recordedAt: cut.recordedAt };
  const state = useApi(
    async (get) => {
      const [entities, facts, events] = await Promise.all([
        get<EntitiesResponse>(memoryPath(memoryId, '/entities'), { query: { ...query, limit: 1000 } }),
        get<FactsResponse>(memoryPath(memoryId, '/facts'), { query }),
        get<EventsResponse>(memoryPath(memoryId, '/events'), { query }),
      ]);
      return { entities, facts, events };
    },
    [memoryId, cut.validAt, cut.recordedAt],
  );
  const extra = { changesFrom, changesTo };
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
      <Loading state={state}>
        {({ entities, facts, events }) => {
          const names = entityNames(entities.entities);
          const bySrc = new Map<string, FactVersion[]>();
          for (const fact of facts.facts) bySrc.set(fact.src, [...(bySrc.get(fact.src) ?? []), fact]);
          return (
            <>
              <p class="muted" data-testid="answered-cut">
                Answered for valid time {formatInstant(facts.cut.validAt)}, record time {formatInstant(facts.cut.recordedAt)}:{' '}
                {entities.entities.length} entities, {facts.facts.length} facts, {events.events.length} events.
              </p>
              <Section title="Entities and their facts" id="entities">
                {entities.entities.length === 0 ? <p>No entity was recorded by this record time.</p> : null}
                <ul class="entities">
                  {entities.entities.map((entity) => (
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
                {entities.next !== null ? <p class="muted">Only the first 1000 entities are listed.</p> : null}
              </Section>
              <Section title="Events visible" id="events">
                {events.events.length === 0 ? (
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
                        {events.events.map((event) => (
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
              </Section>
              <Changes memoryId={memoryId} cut={cut} names={names} from={changesFrom} to={changesTo} />
            </>
          );
        }}
      </Loading>
    </>
  );
}

/** What changed in record time between two instants (default: the week before the cut's record time). */
function Changes({ memoryId, cut, names, from, to }: { memoryId: string; cut: Cut; names: Map<string, string>; from?: string; to?: string }) {
  const end = to ?? cut.recordedAt ?? new Date().toISOString();
  const start = from ?? new Date(Date.parse(end) - 7 * DAY).toISOString();
  const state = useApi((get) => get<ChangesResponse>(memoryPath(memoryId, '/changes'), { query: { from: start, to: end } }), [memoryId, start, end]);
  const set = (name: 'changesFrom' | 'changesTo', value: string) => {
    const iso = fromInputValue(value);
    if (iso === undefined) return;
    navigate(location.pathname + cutQuery(cut, { changesFrom: from, changesTo: to, [name]: iso }), true);
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
            onInput={(e) => set('changesFrom', e.currentTarget.value)}
          />
        </label>
        <label>
          To (UTC)
          <input type="datetime-local" step={1} name="changesTo" value={toInputValue(end)} onInput={(e) => set('changesTo', e.currentTarget.value)} />
        </label>
      </div>
      <Loading state={state}>
        {({ changes }) =>
          changes.length === 0 ? (
            <p>
              Nothing changed in [{formatInstant(start)}, {formatInstant(end)}).
            </p>
          ) : (
            <div class="table-wrap">
              <table>
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
                        {names.get(c.version.src) ?? c.version.src} <span class="rel">{c.version.rel}</span>{' '}
                        <Dst fact={c.version} names={names} memoryId={memoryId} cut={cut} />
                      </td>
                      <td>{interval(c.version.validFrom, c.version.validTo)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loading>
    </Section>
  );
}
