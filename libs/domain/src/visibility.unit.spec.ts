import fc from 'fast-check';
import { entityAt, episodesAt, eventsAt, factsAt, mentionsAt } from './cut';
import type { MemoryRecord } from './records';
import { fold } from './evolve';
import type { MemoryState } from './state';
import { occurrenceHistoryArb, runHistory } from './testing/histories';
import type { Instant } from './time';
import type { ValidAt } from './views';
import {
  CUT_KINDS,
  type CutKind,
  VISIBILITY,
  compileCut,
  inCut,
  inRecordTime,
  inValidTime,
  kindsByDependency,
  listedMembers,
  requirementHolds,
} from './visibility';

/**
 * The rules of the cut (visibility.ts) at the boundaries of intervals, XTDB style: cuts
 * exactly at recordedFrom, recordedTo, validFrom and validTo (and 1 ms either side), first
 * of the generic evaluator, then of the reference cut (cut.ts) over random histories against
 * a model read straight off every version's intervals.
 */
const plusMs = (instant: Instant, ms: number): Instant => new Date(Date.parse(instant) + ms).toISOString();
const T0 = Date.parse('2024-05-06T00:00:00.000Z');
const at = (minutes: number): Instant => new Date(T0 + minutes * 60_000).toISOString();

describe('the rules, as data', () => {
  it('state every kind once, each with the SPEC sentence it encodes', () => {
    expect(Object.keys(VISIBILITY).sort()).toEqual([...CUT_KINDS].sort());
    for (const kind of CUT_KINDS) expect([kind, VISIBILITY[kind].spec]).toEqual([kind, expect.stringMatching(/^SPEC 3\.2: "/)]);
  });

  it('require members of kinds decided before them (no cycle): facts, then events, then episodes', () => {
    const order = kindsByDependency();
    expect(order.indexOf('fact')).toBeLessThan(order.indexOf('event'));
    expect(order.indexOf('event')).toBeLessThan(order.indexOf('episode'));
    expect(kindsByDependency(['episode', 'mention', 'event'])).toEqual(['event', 'episode', 'mention']);
  });

  it('every / some over no members: vacuously true / false; lists all or only those that count', () => {
    const yes = () => true;
    expect(requirementHolds(VISIBILITY.event.requires, [], yes)).toBe(true);
    expect(requirementHolds(VISIBILITY.episode.requires, [], yes)).toBe(false);
    const odd = (id: string) => id.endsWith('1') || id.endsWith('3');
    expect(requirementHolds(VISIBILITY.event.requires, ['e1', 'e2'], odd)).toBe(false);
    expect(requirementHolds(VISIBILITY.episode.requires, ['e1', 'e2'], odd)).toBe(true);
    expect(listedMembers(VISIBILITY.event.requires, ['e1', 'e2', 'e3'], odd)).toEqual(['e1', 'e2', 'e3']);
    expect(listedMembers(VISIBILITY.episode.requires, ['e1', 'e2', 'e3', 'e1'], odd)).toEqual(['e1', 'e3', 'e1']);
  });
});

describe('the generic evaluator at interval boundaries', () => {
  /** A half-open interval of minutes: [from, from + length), length null = open. */
  const intervalArb = fc.record({ from: fc.integer({ min: 0, max: 1000 }), length: fc.option(fc.integer({ min: 1, max: 500 }), { freq: 3 }) });
  const item = (record: { from: number; length: number | null }, validity: { from: number; length: number | null }) => ({
    recordedFrom: at(record.from),
    recordedTo: record.length === null ? null : at(record.from + record.length),
    validFrom: at(validity.from),
    validTo: validity.length === null ? null : at(validity.from + validity.length),
  });
  type Item = ReturnType<typeof item>;
  const fields = {
    recordedFrom: (i: Item) => i.recordedFrom,
    recordedTo: (i: Item) => i.recordedTo,
    validity: { from: (i: Item) => i.validFrom, to: (i: Item) => i.validTo },
  };
  const never = () => false;

  it('a version (record interval): in at recordedFrom and 1 ms before recordedTo, out 1 ms before recordedFrom and at recordedTo', () => {
    fc.assert(
      fc.property(intervalArb, intervalArb, (record, validity) => {
        const v = item(record, validity);
        const shown = (recordedAt: Instant, validAt: ValidAt) => inCut('fact', v, fields, { validAt, recordedAt }, never);
        const compiled = compileCut('fact', fields);
        for (const [r, expected] of [
          [v.recordedFrom, true],
          [plusMs(v.recordedFrom, -1), false],
          ...(v.recordedTo === null
            ? []
            : ([
                [v.recordedTo, false],
                [plusMs(v.recordedTo, -1), true],
              ] as const)),
        ] as const) {
          expect({ r, shown: shown(r, '*') }).toEqual({ r, shown: expected });
          expect(compiled(v, { validAt: '*', recordedAt: r }, never)).toBe(expected);
          expect(inRecordTime('interval', Date.parse(v.recordedFrom), v.recordedTo === null ? null : Date.parse(v.recordedTo), Date.parse(r))).toBe(
            expected,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('validity: in at validFrom and 1 ms before validTo, out 1 ms before validFrom and at validTo; any at "*"', () => {
    fc.assert(
      fc.property(intervalArb, intervalArb, (record, validity) => {
        const v = item(record, validity);
        const r = v.recordedFrom;
        const compiled = compileCut('fact', fields);
        for (const [validAt, expected] of [
          ['*', true],
          [v.validFrom, true],
          [plusMs(v.validFrom, -1), false],
          ...(v.validTo === null
            ? []
            : ([
                [v.validTo, false],
                [plusMs(v.validTo, -1), true],
              ] as const)),
        ] as const) {
          expect({ validAt, shown: inCut('fact', v, fields, { validAt, recordedAt: r }, never) }).toEqual({ validAt, shown: expected });
          expect(compiled(v, { validAt, recordedAt: r }, never)).toBe(expected);
          expect(inValidTime(v.validFrom, v.validTo, validAt)).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('recorded once (since): in from recordedFrom on, whatever else the item says; never before', () => {
    fc.assert(
      fc.property(intervalArb, fc.integer({ min: 0, max: 2000 }), (record, later) => {
        const v = item(record, record);
        const r = at(record.from + later);
        for (const kind of ['mention', 'entity', 'merge'] as const) {
          const f = { recordedFrom: fields.recordedFrom };
          expect(inCut(kind, v, f, { validAt: at(0), recordedAt: r }, never)).toBe(true);
          expect(inCut(kind, v, f, { validAt: '*', recordedAt: plusMs(v.recordedFrom, -1) }, never)).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});

// --- the reference cut against a model of the rules, at every boundary of random histories ---

/** The version of an item whose record interval holds r (at most one, SPEC 3.1). */
function versionAt<V extends { recordedFrom: Instant; recordedTo: Instant | null }>(versions: readonly V[] | undefined, r: Instant): V | undefined {
  return versions?.find((v) => v.recordedFrom <= r && (v.recordedTo === null || r < v.recordedTo));
}

const holds = (from: Instant, to: Instant | null, t: ValidAt) => t === '*' || (from <= t && (to === null || t < to));

/** What the cut (validAt, r) shows, read off the intervals of the whole history (no fold). */
function model(full: MemoryState, validAt: ValidAt, r: Instant) {
  const believed = (factId: string) => versionAt(full.facts.get(factId)?.versions, r) !== undefined;
  const eventShown = (eventId: string, t: ValidAt) => {
    const v = versionAt(full.events.get(eventId), r);
    return v !== undefined && holds(v.timeSpan.from, v.timeSpan.to, t) && v.includesFacts.every(believed);
  };
  const facts = [...full.facts.values()].flatMap((f) => {
    const v = versionAt(f.versions, r);
    return v && holds(v.validFrom, v.validTo, validAt) ? [`${f.factId} ${v.recordedFrom} ${v.validFrom} ${v.validTo}`] : [];
  });
  const events = [...full.events.keys()].filter((id) => eventShown(id, validAt));
  const episodes = [...full.episodes.entries()].flatMap(([id, versions]) => {
    const v = versionAt(versions, r);
    if (!v || !holds(v.window.from, v.window.to, validAt)) return [];
    const listed = v.events.filter((e) => eventShown(e, '*'));
    return listed.length > 0 ? [`${id} ${listed.join(',')}`] : [];
  });
  const mentions = [...full.mentions.values()].filter((m) => m.recordedFrom <= r).map((m) => m.mentionId);
  const merges = full.merges.filter((m) => m.recordedAt <= r).length;
  return { facts: facts.sort(), events: events.sort(), episodes: episodes.sort(), mentions: mentions.sort(), merges };
}

function reference(state: MemoryState, validAt: ValidAt) {
  return {
    facts: factsAt(state, validAt)
      .map((f) => `${f.factId} ${f.recordedFrom} ${f.validFrom} ${f.validTo}`)
      .sort(),
    events: eventsAt(state, validAt)
      .map((e) => e.eventId)
      .sort(),
    episodes: episodesAt(state, validAt)
      .map((e) => `${e.episodeId} ${e.events.join(',')}`)
      .sort(),
    mentions: mentionsAt(state)
      .map((m) => m.mentionId)
      .sort(),
    merges: new Set(
      [...state.entities.keys()].flatMap((id) => entityAt(state, id)?.merges.map((m) => `${m.entityId}>${m.into}@${m.recordedAt}`) ?? []),
    ).size,
  };
}

/** Every record-time and valid-time boundary of the history's versions, with the valid times to cut each record time at. */
function boundaryCuts(full: MemoryState): { r: Instant; validAts: ValidAt[] }[] {
  const cuts = new Map<Instant, Set<ValidAt>>();
  const add = (r: Instant, validAts: ValidAt[]) => {
    for (const t of [r, plusMs(r, -1)]) {
      const set = cuts.get(t) ?? new Set<ValidAt>(['*']);
      validAts.forEach((v) => set.add(v));
      cuts.set(t, set);
    }
  };
  const validBounds = (from: Instant, to: Instant | null): ValidAt[] => [from, plusMs(from, -1), ...(to === null ? [] : [to, plusMs(to, -1)])];
  const versions = (kind: CutKind) =>
    kind === 'fact'
      ? [...full.facts.values()].flatMap((f) => f.versions.map((v) => ({ ...v, valid: validBounds(v.validFrom, v.validTo) })))
      : kind === 'event'
        ? [...full.events.values()].flat().map((v) => ({ ...v, valid: validBounds(v.timeSpan.from, v.timeSpan.to) }))
        : [...full.episodes.values()].flat().map((v) => ({ ...v, valid: validBounds(v.window.from, v.window.to) }));
  for (const kind of ['fact', 'event', 'episode'] as const) {
    for (const v of versions(kind)) {
      add(v.recordedFrom, v.valid);
      if (v.recordedTo !== null) add(v.recordedTo, v.valid);
    }
  }
  for (const m of full.mentions.values()) add(m.recordedFrom, []);
  for (const m of full.merges) add(m.recordedAt, []);
  return [...cuts].map(([r, validAts]) => ({ r, validAts: [...validAts] }));
}

describe('the reference cut at every boundary of random histories', () => {
  it('answers what the rules say, read off the intervals of every version (facts, events, episodes with their events, mentions, merges)', () => {
    let cuts = 0;
    let hiddenByEvidence = 0;
    fc.assert(
      fc.property(occurrenceHistoryArb, (batches) => {
        const run = runHistory(batches);
        const log: readonly MemoryRecord[] = run.log;
        const full = fold(log);
        for (const { r, validAts } of boundaryCuts(full)) {
          const state = fold(log, r);
          for (const validAt of validAts) {
            const expected = model(full, validAt, r);
            expect({ r, validAt, ...reference(state, validAt) }).toEqual({ r, validAt, ...expected });
            cuts += 1;
          }
          if (
            [...full.events.keys()].some((id) => versionAt(full.events.get(id), r) !== undefined) &&
            model(full, '*', r).events.length < [...full.events.values()].filter((v) => versionAt(v, r)).length
          ) {
            hiddenByEvidence += 1;
          }
        }
      }),
      { numRuns: 300, seed: 5 },
    );
    expect(cuts).toBeGreaterThan(10_000);
    expect(hiddenByEvidence).toBeGreaterThan(20);
  });
});
