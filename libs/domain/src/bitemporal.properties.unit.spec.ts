import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { entityAt, episodesAt, eventsAt, factsAt, mentionsAt } from './cut';
import { decideBatch } from './decide-batch';
import type { MemoryRecord } from './records';
import { factIdsOf } from './record-types';
import { fold } from './evolve';
import { commandsOfLog } from './export';
import { deriveEntityId } from './ids';
import { type FactVersion, type MemoryState, initialState, openVersion } from './state';
import { ENTITY_IDS, RECORD_TIMES, VALID_TIMES, historyArb, runHistory } from './testing/histories';
import type { ValidAt } from './views';

/**
 * Property tests over random command histories (see testing/histories.ts): a
 * handful of entities, works_at declared `one` (more DEFINE_RELATIONs at random),
 * UPSERT_EDGE with random validity/confidence, ARCHIVE_EDGE, RETRO_CORRECT,
 * MERGE_ENTITY, UPSERT_EVENT, LINK, UPSERT_EPISODE, RECORD_MENTION, record times from a small set of
 * instants (monotone, with repeats, a few regressions and server-clock commands),
 * idempotent resends, and invalid commands (their batches are rejected).
 */
const RUNS = { numRuns: 1000 };
const VALID_ATS: ValidAt[] = ['*', ...VALID_TIMES];
const EVENT_VALID_ATS: ValidAt[] = ['*', VALID_TIMES[2]!, VALID_TIMES[5]!];
const MEMORY_ID = 'prop-mem';
const ENTITY_QUERIES = [...ENTITY_IDS, 'ghost', deriveEntityId(MEMORY_ID, 'Alice'), deriveEntityId(MEMORY_ID, 'Bob')];

/** Every cut answer at the state's record time, serialised (answers are sorted, so equal answers serialise equally). */
function answers(state: MemoryState): string {
  return JSON.stringify({
    facts: VALID_ATS.map((v) => factsAt(state, v)),
    events: EVENT_VALID_ATS.map((v) => eventsAt(state, v)),
    episodes: EVENT_VALID_ATS.map((v) => episodesAt(state, v)),
    entities: ENTITY_QUERIES.map((id) => entityAt(state, id)),
    mentions: mentionsAt(state),
  });
}

/** A strict serialisation of states and logs (Maps and Sets with their entries in order), for readable failure diffs. */
function canon(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (v instanceof Map ? { map: [...v.entries()] } : v instanceof Set ? { set: [...v] } : v));
}

/** fold(log, r) folds exactly the events before the first one recorded after r. */
function cutIndex(log: readonly MemoryRecord[], r: string): number {
  const i = log.findIndex((e) => e.meta.recordedAt > r);
  return i === -1 ? log.length : i;
}

function factsAnswers(state: MemoryState): string {
  return JSON.stringify(VALID_ATS.map((v) => factsAt(state, v)));
}

function allVersions(state: MemoryState): [string, FactVersion[]][] {
  return [...state.facts.values()].map((f) => [f.factId, f.versions]);
}

const recordTimesOf = (log: readonly MemoryRecord[]): string[] => [...new Set(log.map((e) => e.meta.recordedAt))];

describe('bitemporal properties of random histories', () => {
  it('the generator exercises every op, supersession, merges, duplicates and every rejection kind', () => {
    const types = new Map<string, number>();
    const errors = new Map<string, number>();
    let duplicates = 0;
    let unchanged = 0;
    for (const batches of fc.sample(historyArb, { numRuns: 400, seed: 42 })) {
      const run = runHistory(batches);
      run.log.forEach((e) => types.set(e.type, (types.get(e.type) ?? 0) + 1));
      for (const b of run.batches) {
        if (b.error) errors.set(b.error.code, (errors.get(b.error.code) ?? 0) + 1);
        duplicates += b.results?.filter((r) => r.status === 'duplicate').length ?? 0;
        unchanged += b.results?.filter((r) => r.status === 'unchanged').length ?? 0;
      }
    }
    for (const type of [
      'EntityRegistered',
      'EntityAliasesAdded',
      'EntitiesMerged',
      'RelationDefined',
      'FactAsserted',
      'FactArchived',
      'FactRetroCorrected',
      'FactSuperseded',
      'EventRecorded',
      'EventsLinked',
      'EpisodeRecorded',
      'MentionRecorded',
    ]) {
      expect([type, (types.get(type) ?? 0) > 5]).toEqual([type, true]);
    }
    for (const code of [
      'UNKNOWN_ENTITY',
      'UNKNOWN_FACT',
      'FACT_NOT_OPEN',
      'FACT_CONFLICT',
      'INVALID_INTERVAL',
      'INVALID_REQUEST',
      'RECORD_TIME_REGRESSION',
      'MENTION_CONFLICT',
      'UNKNOWN_EVENT',
    ]) {
      expect([code, (errors.get(code) ?? 0) > 3]).toEqual([code, true]);
    }
    expect(duplicates).toBeGreaterThan(10);
    expect(unchanged).toBeGreaterThan(10);
  });

  it('(a) a fact has at most one open version, and only its last version may be open', () => {
    const violations = (state: MemoryState): string[] =>
      allVersions(state).flatMap(([factId, versions]) =>
        versions.flatMap((v, i) =>
          v.recordedTo === null && i !== versions.length - 1 ? [`${factId}: version ${i} of ${versions.length} is open`] : [],
        ),
      );
    fc.assert(
      fc.property(historyArb, (batches) => {
        const found: string[] = [];
        const run = runHistory(batches, { afterBatch: (state) => found.push(...violations(state)) });
        found.push(...violations(run.state), ...violations(fold(run.log)));
        expect(found).toEqual([]);
      }),
      RUNS,
    );
  });

  it('(b) record intervals of a fact never overlap and are contiguous in log order', () => {
    fc.assert(
      fc.property(historyArb, (batches) => {
        const run = runHistory(batches);
        const found: string[] = [];
        for (const [factId, versions] of allVersions(run.state)) {
          versions.forEach((v, i) => {
            // half-open and well ordered; empty [r, r) allowed
            if (v.recordedTo !== null && v.recordedTo < v.recordedFrom) found.push(`${factId}#${i}: [${v.recordedFrom}, ${v.recordedTo})`);
            // pairwise disjoint, in order (a gap is left by an ARCHIVE_EDGE, checked exactly below)
            versions.slice(i + 1).forEach((w, j) => {
              if (v.recordedTo === null || v.recordedTo > w.recordedFrom) found.push(`${factId}#${i} overlaps #${i + 1 + j}`);
            });
          });
          // contiguous in log order, against an independent model built from the fact's audit
          // stream: every event touching the fact closes the open version at its record time,
          // and all but FactArchived open the next one there (an erasure, in the stream too, changes no interval)
          const model: { from: string; to: string | null }[] = [];
          for (const event of run.log) {
            if (!factIdsOf(event).includes(factId) || event.type === 'SubjectErased') continue;
            const open = model.find((m) => m.to === null);
            if (open) open.to = event.meta.recordedAt;
            if (event.type !== 'FactArchived') model.push({ from: event.meta.recordedAt, to: null });
          }
          const actual = versions.map((v) => ({ from: v.recordedFrom, to: v.recordedTo }));
          if (JSON.stringify(actual) !== JSON.stringify(model)) found.push(`${factId}: ${JSON.stringify(actual)} != model ${JSON.stringify(model)}`);
        }
        expect(found).toEqual([]);
      }),
      RUNS,
    );
  });

  it('(c) every version has validFrom < validTo', () => {
    fc.assert(
      fc.property(historyArb, (batches) => {
        const run = runHistory(batches);
        const found: string[] = [];
        for (const [factId, versions] of allVersions(run.state)) {
          versions.forEach((v, i) => {
            if (v.validTo !== null && !(v.validFrom < v.validTo)) found.push(`${factId}#${i}: valid [${v.validFrom}, ${v.validTo})`);
          });
        }
        for (const event of run.log) {
          if (event.type === 'FactAsserted' || event.type === 'FactRetroCorrected' || event.type === 'FactSuperseded') {
            if (event.data.validTo !== null && !(event.data.validFrom < event.data.validTo))
              found.push(`${event.type} ${JSON.stringify(event.data)}`);
          }
        }
        expect(found).toEqual([]);
      }),
      RUNS,
    );
  });

  it('(c2) a supersession only ends a fact earlier: same validFrom, validTo = t inside the old validity', () => {
    fc.assert(
      fc.property(historyArb, (batches) => {
        const found: string[] = [];
        const state = fold([]);
        for (const event of runHistory(batches).log) {
          if (event.type === 'FactSuperseded') {
            const fact = state.facts.get(event.data.factId);
            const open = fact?.versions[fact.versions.length - 1];
            const by = state.facts.get(event.data.supersededBy);
            const ok =
              open !== undefined &&
              open.recordedTo === null &&
              open.validFrom === event.data.validFrom &&
              open.validFrom < event.data.validTo &&
              (open.validTo === null || event.data.validTo < open.validTo) &&
              by !== undefined &&
              by.rel === fact!.rel &&
              state.relations.get(fact!.rel) === 'one';
            if (!ok) found.push(`${JSON.stringify(event.data)} over ${JSON.stringify(open)}`);
          }
          fold([event], undefined, state);
        }
        expect(found).toEqual([]);
      }),
      RUNS,
    );
  });

  it('(c3) the open-slot index names exactly the facts whose open version ends after t or never', () => {
    fc.assert(
      fc.property(historyArb, (batches) => {
        const found: string[] = [];
        runHistory(batches, {
          afterBatch: (state) => {
            for (const [key, ids] of state.factsBySubject) {
              for (const t of VALID_TIMES) {
                const expected = [...ids].filter((id) => {
                  const open = openVersion(state.facts.get(id)!.versions);
                  return open !== undefined && (open.validTo === null || t < open.validTo);
                });
                const indexed = [
                  ...state.openSlots.endingAfter(key, t, () =>
                    [...ids].flatMap((id) => {
                      const open = openVersion(state.facts.get(id)!.versions);
                      return open ? [[id, open] as const] : [];
                    }),
                  ),
                ];
                if (!isDeepStrictEqual(indexed.sort(), expected.sort())) found.push(`${key} at ${t}: ${indexed} != ${expected}`);
              }
            }
          },
        });
        expect(found).toEqual([]);
      }),
      RUNS,
    );
  });

  it('(d) cut isolation: appending commands with later recordedAt never changes answers at an earlier record time', () => {
    fc.assert(
      fc.property(historyArb, (batches) => {
        const snapshots: { r: string; logLength: number; answers: string }[] = [];
        const run = runHistory(batches, {
          afterBatch: (state, log) => snapshots.push({ r: state.latestRecordedAt!, logLength: log.length, answers: answers(state) }),
        });
        const log = run.log;
        // the log's record time never goes back
        expect(log.filter((e, i) => i > 0 && e.meta.recordedAt < log[i - 1]!.meta.recordedAt)).toEqual([]);

        // answers of fold(events, r) for a prefix `events` of the log depend only on the events folded
        const memo = new Map<number, string>();
        const answersOfFirst = (n: number) => {
          if (!memo.has(n)) memo.set(n, answers(fold(log.slice(0, n))));
          return memo.get(n)!;
        };
        const all = (r: string) => answersOfFirst(cutIndex(log, r));
        const found: { r: string; before: string; after: string }[] = [];
        for (const snapshot of snapshots) {
          const firstAppended = log[snapshot.logLength]?.meta.recordedAt;
          // what the live state answered at its own record time still holds after everything later
          if ((firstAppended === undefined || firstAppended > snapshot.r) && all(snapshot.r) !== snapshot.answers) {
            found.push({ r: snapshot.r, before: snapshot.answers, after: all(snapshot.r) });
          }
          // fold(events, r) before and after appending, for every r earlier than the appended commands
          const prefix = log.slice(0, snapshot.logLength);
          for (const r of RECORD_TIMES) {
            if (firstAppended !== undefined && r >= firstAppended) continue;
            const before = answersOfFirst(cutIndex(prefix, r));
            if (before !== all(r)) found.push({ r, before, after: all(r) });
          }
        }
        expect(found).toEqual([]);
      }),
      RUNS,
    );
  });

  it('(e) replay determinism: folding twice gives equal states and answers; decideBatch state equals fold(all events)', () => {
    fc.assert(
      fc.property(historyArb, (batches) => {
        let checked = 0;
        const mismatches: number[] = [];
        const run = runHistory(batches, {
          afterBatch: (state, log) => {
            checked += 1;
            if (!isDeepStrictEqual(state, fold(log))) mismatches.push(log.length);
          },
        });
        expect(checked).toBeGreaterThan(0);
        expect(mismatches).toEqual([]);
        const first = fold(run.log);
        const second = fold(run.log);
        if (!isDeepStrictEqual(second, first)) expect(canon(second)).toBe(canon(first));
        if (!isDeepStrictEqual(run.state, first)) expect(canon(run.state)).toBe(canon(first));
        expect(first.eventCount).toBe(run.log.length);
        const differing = recordTimesOf(run.log).filter((r) => answers(fold(run.log, r)) !== answers(fold(run.log, r)));
        expect(differing).toEqual([]);
        // deciding the same history again gives the same log
        const again = runHistory(batches);
        if (!isDeepStrictEqual(again.log, run.log)) expect(canon(again.log)).toBe(canon(run.log));
      }),
      RUNS,
    );
  });

  it('(f) export/import: commandsOfLog replayed into a fresh memory reproduces factsAt at every record time', () => {
    fc.assert(
      fc.property(historyArb, fc.integer({ min: 1, max: 8 }), (batches, batchSize) => {
        const run = runHistory(batches);
        const commands = commandsOfLog(run.log);
        const imported = initialState();
        const importedLog: MemoryRecord[] = [];
        for (let i = 0; i < commands.length; i += batchSize) {
          const { records, results } = decideBatch('imported-mem', imported, commands.slice(i, i + batchSize), RECORD_TIMES[0]!);
          expect(results.filter((r) => r.status === 'duplicate')).toEqual([]);
          importedLog.push(...records);
        }
        const differing = [...new Set([...recordTimesOf(run.log), ...RECORD_TIMES])].filter(
          (r) => factsAnswers(fold(importedLog, r)) !== factsAnswers(fold(run.log, r)),
        );
        expect(differing).toEqual([]);
        expect(canon(importedLog.map(({ type, data, meta }) => ({ type, data, meta })))).toBe(
          canon(run.log.map(({ type, data, meta }) => ({ type, data, meta }))),
        );
        expect(JSON.stringify(commandsOfLog(importedLog))).toBe(JSON.stringify(commands));
      }),
      RUNS,
    );
  });
});
