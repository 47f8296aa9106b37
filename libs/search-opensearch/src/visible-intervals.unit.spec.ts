import { type Instant, type ValidAt, episodesAt, eventsAt, factsAt, fold, isCanonicalInstant, mentionsAt, validityBounds } from '@memotrace/domain';
import { occurrenceHistoryArb, runHistory } from '@memotrace/domain/testing/histories';
import fc from 'fast-check';
import { cutFilter } from './cut-filter';
import type { IndexedKind, SearchDoc } from './documents';
import { type Interval, union } from './intervals';
import { SETTLE_ORDER, visibleIntervals } from './visible-intervals';

/**
 * OpenSearch's translation of the cut without OpenSearch: documents made of every version of
 * random histories, their record-time sets settled from the rules (visibleIntervals, in
 * SETTLE_ORDER), then the query's filter (cutFilter) evaluated here as OpenSearch evaluates it
 * (`contains` on date ranges), must show what the domain's reference cut shows. The real
 * projection and node are checked by services/query/src/cut-conformance.int.spec.ts. An erased
 * fact or event version is kept (marked) for the rules of the items including it and is no
 * item; an erased mention has no document (SPEC §5.2).
 */
const plusMs = (instant: Instant, ms: number): Instant => new Date(Date.parse(instant) + ms).toISOString();
const around = (instants: Iterable<Instant>): Instant[] => [
  ...new Set([...instants].flatMap((t) => [plusMs(t, -1), t, plusMs(t, 1)]).filter(isCanonicalInstant)),
];

type Doc = SearchDoc & { kind: IndexedKind };

function docsOf(state: ReturnType<typeof fold>): Doc[] {
  const base = (kind: IndexedKind, itemId: string, n: number, v: { recordedFrom: Instant; recordedTo?: Instant | null }): Doc => ({
    memoryId: 'm',
    itemKey: `${kind}:${itemId}#${n}`,
    kind,
    itemId,
    text: '',
    recorded: [],
    recordedFrom: v.recordedFrom,
    recordedTo: v.recordedTo ?? null,
    position: n,
  });
  return [
    ...[...state.facts.values()].flatMap((f) =>
      f.versions.map((v, n) => ({ ...base('fact', f.factId, n, v), valid: { from: v.validFrom, to: v.validTo }, erased: v.erased === true })),
    ),
    ...[...state.events.values()].flatMap((vs) =>
      vs.map((v, n) => ({
        ...base('event', v.eventId, n, v),
        valid: { from: v.timeSpan.from, to: v.timeSpan.to },
        includesFacts: v.includesFacts,
        erased: v.erased === true,
      })),
    ),
    ...[...state.episodes.values()].flatMap((vs) =>
      vs.map((v, n) => ({ ...base('episode', v.episodeId, n, v), valid: { from: v.window.from, to: v.window.to }, events: v.events })),
    ),
    ...[...state.mentions.values()].filter((m) => m.erased !== true).map((m) => ({ ...base('mention', m.mentionId, 0, m), valid: null })),
    ...[...state.entities.values()].map((e) => base('entity', e.entityId, 0, e)),
  ];
}

/** Settles every document's record-time set as the projection does. */
function settle(docs: Doc[]): void {
  const times = (kind: IndexedKind, id: string) => union(...docs.filter((d) => d.kind === kind && d.itemId === id).map((d) => d.recorded));
  for (const kind of SETTLE_ORDER) for (const doc of docs) if (doc.kind === kind) doc.recorded = visibleIntervals(kind, doc, times);
}

/** The filter clauses cutFilter builds, evaluated on one document the way OpenSearch does. */
function matches(doc: Doc, clause: Record<string, unknown>): boolean {
  const [[type, body]] = Object.entries(clause) as [[string, Record<string, unknown>]];
  const field = (name: string): unknown => (doc as unknown as Record<string, unknown>)[name];
  switch (type) {
    case 'term':
      return Object.entries(body).every(([name, value]) => field(name) === value);
    case 'terms':
      return Object.entries(body).every(([name, values]) => (values as unknown[]).includes(field(name)));
    case 'range':
      return Object.entries(body).every(([name, range]) => {
        const { gte, lte, relation } = range as { gte: Instant; lte: Instant; relation: string };
        if (relation !== 'contains' || gte !== lte) throw new Error(`unexpected range ${JSON.stringify(range)}`);
        const value = field(name) as Interval | Interval[] | null | undefined;
        const ranges = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
        return ranges.some((i) => i.from <= gte && (i.to === null || gte < i.to));
      });
    case 'bool': {
      const {
        filter = [],
        should,
        must_not: mustNot,
        minimum_should_match: min,
      } = body as {
        filter?: Record<string, unknown>[];
        should?: Record<string, unknown>[];
        must_not?: Record<string, unknown>;
        minimum_should_match?: number;
      };
      if (!filter.every((c) => matches(doc, c))) return false;
      if (mustNot !== undefined && matches(doc, mustNot)) return false;
      return should === undefined || should.filter((c) => matches(doc, c)).length >= (min ?? 1);
    }
    default:
      throw new Error(`unexpected clause ${type}`);
  }
}

describe('OpenSearch\u2019s translation of the cut, evaluated in memory', () => {
  it('shows at every cut around every record time and validity bound what the reference cut shows', () => {
    let cuts = 0;
    let erased = 0;
    fc.assert(
      fc.property(occurrenceHistoryArb, (batches) => {
        const { log } = runHistory(batches, { memoryId: 'm' });
        const full = fold(log);
        const docs = docsOf(full);
        settle(docs);
        erased += docs.filter((d) => d.erased).length;
        const validAts: ValidAt[] = ['*', ...around(validityBounds(full))];
        for (const r of around(new Set(log.map((e) => e.meta.recordedAt)))) {
          const state = fold(log, r);
          for (const validAt of validAts) {
            const filter = cutFilter('m', { validAt, recordedAt: r });
            const shown = [...new Set(docs.filter((d) => filter.every((c) => matches(d, c))).map((d) => `${d.kind}:${d.itemId}`))].sort();
            const expected = [
              // Erased items are no search items.
              ...factsAt(state, validAt)
                .filter((f) => f.erased !== true)
                .map((f) => `fact:${f.factId}`),
              ...eventsAt(state, validAt)
                .filter((e) => e.erased !== true)
                .map((e) => `event:${e.eventId}`),
              ...episodesAt(state, validAt).map((e) => `episode:${e.episodeId}`),
              ...mentionsAt(state)
                .filter((m) => m.erased !== true)
                .map((m) => `mention:${m.mentionId}`),
            ].sort();
            expect({ r, validAt, shown }).toEqual({ r, validAt, shown: expected });
            cuts += 1;
          }
        }
      }),
      { numRuns: 60, seed: 3 },
    );
    expect(cuts).toBeGreaterThan(5_000);
    expect(erased).toBeGreaterThan(0);
  });
});
