import fc from 'fast-check';
import { changeCountsOf, changesBetween, entitiesAt, episodesAt, eventsAt, factsAt } from './cut';
import { foldBefore } from './evolve';
import { at, edge, entity, given, merge } from './testing/given';
import { type ChangeCount, type Page, changesPageEnd, compareIds, pageOf } from './views';

/**
 * Listings a page at a time (`Page`: after an id, at most `limit`), in the one order of ids
 * (`compareIds`, code point order: how the read models' "C" columns sort), and the filters that
 * let a reader ask for a neighbourhood at once: several `src`, events about an entity, entities by id.
 */
describe('compareIds', () => {
  const utf8 = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  // Characters from every range where UTF-16 and code point order could part: ASCII, below the
  // surrogates, from U+E000 (above them in UTF-16), beyond U+FFFF (a surrogate pair).
  const char = fc.constantFrom('a', 'b', 'Z', '0', 'é', '\u4e00', '\ud7ff', '\ue000', '\uffee', '\uffff', '😀', '\u{10000}', '\u{10ffff}');
  const id = fc.array(char, { maxLength: 5 }).map((chars) => chars.join(''));

  it('is the order of UTF-8 bytes (code points), which PostgreSQL\'s "C" collation sorts by', () => {
    fc.assert(fc.property(id, id, (a, b) => compareIds(a, b) === utf8(a, b)));
  });

  it('puts a character beyond U+FFFF after U+E000..U+FFFF, where UTF-16 order would not', () => {
    expect(compareIds('😀', '\uffee')).toBe(1);
    expect('😀' < '\uffee').toBe(true);
    expect(compareIds('a', 'a')).toBe(0);
    expect(compareIds('a', 'ab')).toBe(-1);
  });
});

describe('pageOf', () => {
  const ids = ['a', 'b', 'c', 'd'];
  const page = (p: Page) => pageOf(ids, (x) => x, p);

  it('takes what follows `after` (which need not be listed), at most `limit`', () => {
    expect(page({})).toEqual(ids);
    expect(page({ limit: 2 })).toEqual(['a', 'b']);
    expect(page({ after: 'b', limit: 1 })).toEqual(['c']);
    expect(page({ after: 'bb' })).toEqual(['c', 'd']);
    expect(page({ after: 'd' })).toEqual([]);
  });

  it('walks a listing: the pages, one after another, are the listing', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 })), fc.integer({ min: 1, max: 4 }), (items, limit) => {
        const sorted = [...items].sort(compareIds);
        const walked: string[] = [];
        let after: string | undefined;
        for (;;) {
          const next = pageOf(sorted, (x) => x, { after, limit });
          walked.push(...next);
          if (next.length < limit) break;
          after = next[next.length - 1];
        }
        expect(walked).toEqual(sorted);
      }),
    );
  });
});

describe('changesPageEnd', () => {
  const counts = (...n: number[]): ChangeCount[] => n.map((changes, i) => ({ at: at('MON', `0${i}:00`), changes }));

  it('ends a page before the instant that would take it past the limit, never inside an instant', () => {
    expect(changesPageEnd(counts(1, 1, 1), 3)).toBeNull();
    expect(changesPageEnd(counts(1, 1, 1, 1), 3)).toBe(at('MON', '03:00'));
    expect(changesPageEnd(counts(2, 2), 3)).toBe(at('MON', '01:00'));
    expect(changesPageEnd(counts(3, 1), 3)).toBe(at('MON', '01:00'));
  });

  it('takes the first instant whole, however many changes it holds', () => {
    expect(changesPageEnd(counts(5, 1), 3)).toBe(at('MON', '01:00'));
    expect(changesPageEnd(counts(5), 3)).toBeNull();
  });
});

/**
 *   MON 09:00  ann, bob, cy, dee; ann knows bob (f1), bob knows cy (f2), cy age 3 (f3), dee knows ann (f4)
 *   MON 10:00  events: e-ann (ann takes part), e-f2 (includes f2, bob to cy), e-none; episodes ep1 (e-ann), ep2 (e-f2), ep3 (e-none)
 *   TUE 09:00  dee merged into cy; f2 archived (e-f2 leaves the cut, ep2 with it)
 */
function neighbourhood() {
  const mon = at('MON', '09:00');
  const ten = at('MON', '10:00');
  const event = (eventId: string, includesFacts: string[], participants: { entityId: string; role: string }[] = []) => ({
    op: 'UPSERT_EVENT' as const,
    eventId,
    summary: eventId,
    includesFacts,
    participants,
    timeSpan: { from: at('MON') },
    recordedAt: ten,
  });
  const episode = (episodeId: string, events: string[]) => ({
    op: 'UPSERT_EPISODE' as const,
    episodeId,
    title: episodeId,
    window: { from: at('MON') },
    events,
    recordedAt: ten,
  });
  return given([
    ...['ann', 'bob', 'cy', 'dee'].map((id) => entity(id, id.toUpperCase(), { recordedAt: mon })),
    edge('ann', 'knows', 'bob', { factId: 'f1', validFrom: at('MON'), recordedAt: mon }),
    edge('bob', 'knows', 'cy', { factId: 'f2', validFrom: at('MON'), recordedAt: mon }),
    edge('cy', 'age', { literal: 3, datatype: 'number' }, { factId: 'f3', validFrom: at('MON'), recordedAt: mon }),
    edge('dee', 'knows', 'ann', { factId: 'f4', validFrom: at('MON'), recordedAt: mon }),
    event('e-ann', ['f3'], [{ entityId: 'ann', role: 'host' }]),
    event('e-f2', ['f2']),
    event('e-none', ['f3']),
    episode('ep1', ['e-ann']),
    episode('ep2', ['e-f2']),
    episode('ep3', ['e-none']),
    merge('dee', 'cy', at('TUE', '09:00')),
    { op: 'ARCHIVE_EDGE', factId: 'f2', recordedAt: at('TUE', '09:00') },
  ]);
}

describe('filters and pages of the cut', () => {
  const s = neighbourhood();
  const mon = () => s.at(at('MON', '12:00'));
  const tue = () => s.at(at('TUE', '12:00'));
  const factIds = (facts: { factId: string }[]) => facts.map((f) => f.factId);

  it('facts from several src, each standing for its class at the cut', () => {
    expect(factIds(factsAt(mon(), '*', { src: ['ann', 'cy'] }))).toEqual(['f1', 'f3']);
    expect(factIds(factsAt(mon(), '*', { src: 'dee' }))).toEqual(['f4']);
    // After the merge, cy names dee too.
    expect(factIds(factsAt(tue(), '*', { src: ['cy'] }))).toEqual(['f3', 'f4']);
    expect(factIds(factsAt(mon(), '*', { src: [] }))).toEqual([]);
  });

  it('facts a page at a time, by factId, after filtering', () => {
    expect(factIds(factsAt(mon(), '*', { limit: 2 }))).toEqual(['f1', 'f2']);
    expect(factIds(factsAt(mon(), '*', { after: 'f2', limit: 2 }))).toEqual(['f3', 'f4']);
    expect(factIds(factsAt(mon(), '*', { src: ['bob', 'dee'], after: 'f2' }))).toEqual(['f4']);
  });

  it('events about an entity: it takes part, or a fact of their evidence is from or to it (its class at the cut)', () => {
    const about = (state: ReturnType<typeof mon>, entityId: string) => eventsAt(state, '*', { entity: entityId }).map((e) => e.eventId);
    expect(about(mon(), 'ann')).toEqual(['e-ann']);
    expect(about(mon(), 'bob')).toEqual(['e-f2']);
    expect(about(mon(), 'cy')).toEqual(['e-ann', 'e-f2', 'e-none']);
    expect(about(mon(), 'dee')).toEqual([]);
    // Tuesday: e-f2 is gone from the cut (f2 archived); dee is cy's now.
    expect(about(tue(), 'dee')).toEqual(['e-ann', 'e-none']);
    expect(about(tue(), 'nobody')).toEqual([]);
    expect(eventsAt(mon(), '*', { after: 'e-ann', limit: 1 }).map((e) => e.eventId)).toEqual(['e-f2']);
  });

  it('episodes a page at a time, each visible through its visible events', () => {
    expect(episodesAt(mon(), '*').map((e) => e.episodeId)).toEqual(['ep1', 'ep2', 'ep3']);
    expect(episodesAt(mon(), '*', { after: 'ep1', limit: 1 }).map((e) => e.episodeId)).toEqual(['ep2']);
    expect(episodesAt(tue(), '*', { after: 'ep1' }).map((e) => e.episodeId)).toEqual(['ep3']);
  });

  it('entities by id, each id naming its canonical entity, listed once', () => {
    expect(entitiesAt(mon(), { ids: ['dee', 'ann', 'nobody'] }).map((e) => e.entityId)).toEqual(['ann', 'dee']);
    expect(entitiesAt(tue(), { ids: ['dee', 'cy'] }).map((e) => e.entityId)).toEqual(['cy']);
    expect(entitiesAt(s.at(at('MON', '08:00')), { ids: ['ann'] })).toEqual([]);
    expect(entitiesAt(mon(), { ids: ['ann', 'bob', 'cy'], after: 'ann', limit: 1 }).map((e) => e.entityId)).toEqual(['bob']);
  });

  it('change counts: the window instants in order, as many as asked', () => {
    const all = changesBetween(foldBefore(s.log, at('WED')), at('MON'), at('WED'));
    expect(changeCountsOf(all, 10)).toEqual([
      { at: at('MON', '09:00'), changes: 4 },
      { at: at('TUE', '09:00'), changes: 1 },
    ]);
    expect(changeCountsOf(all, 1)).toEqual([{ at: at('MON', '09:00'), changes: 4 }]);
  });
});
